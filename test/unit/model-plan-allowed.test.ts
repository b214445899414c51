import { planModels, type PlanInputs } from '../../src/pipeline/model-plan';
import type { ProviderBinding, ProviderRegistry } from '../../src/providers/registry';
import { profileRequest } from '../../src/routing/request-profile';
import { learnedQuality } from '../../src/routing/scorer';
import { preparedCompletion } from '../helpers/prepared-completion';
import { routable } from '../helpers/routable-model';
import { shippedRouter } from '../helpers/shipped-router';
import { spaceContext } from '../helpers/space-context';

/** A key's `allowed_models` (docs/keys.md): the plan, its failover chain included, keeps to them. */

const router = shippedRouter();
const registry: ProviderRegistry = { resolve: () => ({}) as ProviderBinding };
/** Ranked m1 > m2 > m3 > m4 on quality alone. */
const models = [0.9, 0.8, 0.7, 0.6].map((overall, i) =>
  routable({ id: `m${i + 1}`, model: `m${i + 1}`, provider: 'openai', namespace: `ns-m${i + 1}`, quality: { overall, categories: {} } }),
);

function plan({ named, allowedModels }: { named?: string; allowedModels?: string[] }) {
  const prepared = preparedCompletion();
  prepared.weights = { cost: 0, latency: 0, quality: 1 };
  prepared.requestedModel = named ?? null;
  const failoverChain = [models[0], models[3]];
  const space = spaceContext({
    weights: prepared.weights,
    policies: { ...prepared.policies, privacy_level: 1 },
    hasFailoverChain: true,
    models,
    failoverChain,
  });
  const inputs: PlanInputs = {
    prepared,
    space,
    profile: profileRequest({ ...prepared.chat, model: '' }, router),
    registry,
    scoring: { weights: prepared.weights, quality: learnedQuality(router), expectedLatency: () => 800 },
    routerVersion: router.version,
    learning: null,
    now: new Date('2026-11-21T00:00:00Z'),
    modelExists: async () => true,
    allowedModels,
  };
  return planModels(inputs);
}

describe('a plan under an allow-list of models', () => {
  it('ranks and fails over among the allowed models only (by name or by provider/namespace)', async () => {
    const chosen = await plan({ allowedModels: ['m3', 'openai/ns-m4'] });
    expect(chosen.attempts.map((m) => m.model)).toEqual(['m3', 'm4']);
    expect(chosen.scores.candidates.map((c) => c.model)).toEqual(['m3', 'm4']);
  });

  it("keeps a named model's alternatives to the list", async () => {
    expect((await plan({ named: 'm4', allowedModels: ['m2', 'm4'] })).attempts.map((m) => m.model)).toEqual(['m4', 'm2']);
  });

  it('refuses a named model outside the list with 403 naming `model`', async () => {
    await expect(plan({ named: 'm1', allowedModels: ['m2'] })).rejects.toMatchObject({ status: 403, code: 'model_not_allowed', param: 'model' });
    await expect(plan({ named: 'openai/ns-m1', allowedModels: ['m2'] })).rejects.toMatchObject({ code: 'model_not_allowed' });
    await expect(plan({ named: 'openai/ns-m2', allowedModels: ['m2'] })).resolves.toMatchObject({ first: { model: 'm2' } });
  });

  it('says so when none of the allowed models is in the Space', async () => {
    await expect(plan({ allowedModels: ['elsewhere'] })).rejects.toMatchObject({
      code: 'model_not_available',
      message: expect.stringContaining('allowed_models'),
    });
  });

  it('plans over the whole Space for a key without a list', async () => {
    expect((await plan({})).attempts.map((m) => m.model)).toEqual(['m1', 'm4', 'm2', 'm3']);
  });
});
