import type { Db } from './db';

/**
 * One query for everything a Space snapshot holds: the Space's row with its active models (and their
 * catalog rows), its failover chain in order and its benchmark model. Models switched off for everyone
 * (`globally_disabled`) are left out of the active list here; the failover chain is filtered by the
 * snapshot, which also drops embedding models from it.
 */
export function readSpaceRows(db: Db, appId: string) {
  return db.app.findUnique({
    where: { id: appId },
    include: {
      models: { where: { active: true, model: { globally_disabled: false } }, include: { model: true } },
      failover_chain: { orderBy: { position: 'asc' }, include: { model: true } },
      benchmark_model: true,
    },
  });
}

export type SpaceRows = NonNullable<Awaited<ReturnType<typeof readSpaceRows>>>;
