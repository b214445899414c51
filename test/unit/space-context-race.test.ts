import { SpaceContextLoader } from '../../src/store/space-context';
import type { Db } from '../../src/store/db';

/**
 * Prisma reads a Space's model links and the models in separate queries: a model deleted between them
 * leaves a link with no model. The snapshot leaves such a link out rather than fail every request of the
 * Space (the short fault suite's fuzz row met it once as a 500 on GET /v1/models/{model}).
 */
it('leaves out a link whose model was deleted while the Space was read', async () => {
  const row = {
    id: 'app',
    org_id: 'org',
    is_active: true,
    rate_limit: 0,
    sandbox_of: null,
    use_parent_custom_data: false,
    weights: {},
    policies: {},
    settings: {},
    has_failover_chain: true,
    models: [{ model: null }],
    failover_chain: [{ model: null, position: 0 }],
    benchmark_model: null,
  };
  const db = { app: { findUnique: async () => row } } as unknown as Db;
  const space = await new SpaceContextLoader(db, 1000).load('app');
  expect(space).toMatchObject({ id: 'app', models: [], embeddingModels: [], failoverChain: [] });
});
