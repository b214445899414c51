import type { Model, Prisma } from '../generated/prisma/client';
import type { Tx } from './db';

/** A model row, optionally with its parent loaded (`include: { parent: true }`). */
export type ModelWithParent = Model & { parent?: Model | null };

/** Which models a Space may use: the public catalog, its organization's custom models and its own. */
export interface ModelScope {
  orgId: string;
  /** The Space and, for a sandbox, its main Space (whose configuration the sandbox copies). */
  appIds: string[];
}

const WITH_PARENT = { parent: true } as const;
const BY_PROVIDER_THEN_MODEL = [{ provider: 'asc' as const }, { model: 'asc' as const }, { id: 'asc' as const }];

export const PUBLIC_CATALOG: Prisma.ModelWhereInput = { app_id: null, org_id: null, is_public: true };

function customFilter(scope: ModelScope): Prisma.ModelWhereInput {
  return { OR: [{ app_id: null, org_id: scope.orgId }, { app_id: { in: scope.appIds } }] };
}

function visibleFilter(scope: ModelScope): Prisma.ModelWhereInput {
  return { OR: [PUBLIC_CATALOG, customFilter(scope)] };
}

export interface FailoverLink {
  model_id: string;
  position: number;
}

/** The catalog and the per-Space model state (`app_models`, `failover_entries`). Each takes a transaction client. */
export const modelStore = {
  findVisible(tx: Tx, scope: ModelScope, id: string): Promise<ModelWithParent | null> {
    return tx.model.findFirst({ where: { AND: [{ id }, visibleFilter(scope)] }, include: WITH_PARENT });
  },

  listVisible(tx: Tx, scope: ModelScope, ids: string[]): Promise<ModelWithParent[]> {
    return tx.model.findMany({ where: { AND: [{ id: { in: ids } }, visibleFilter(scope)] }, include: WITH_PARENT });
  },

  listPublic(tx: Tx): Promise<ModelWithParent[]> {
    return tx.model.findMany({ where: PUBLIC_CATALOG, include: WITH_PARENT, orderBy: BY_PROVIDER_THEN_MODEL });
  },

  listCustom(tx: Tx, scope: ModelScope): Promise<ModelWithParent[]> {
    return tx.model.findMany({ where: customFilter(scope), include: WITH_PARENT, orderBy: BY_PROVIDER_THEN_MODEL });
  },

  /** Whether the organization may name a model of this name: the public catalog's or its own (else the request names an unknown model). */
  async nameKnownTo(tx: Tx, orgId: string, name: string): Promise<boolean> {
    return (await tx.model.count({ where: { model: name, OR: [PUBLIC_CATALOG, { org_id: orgId }] } })) > 0;
  },

  /**
   * The names a key's `allowed_models` may hold in this organization: each model's name and its
   * `provider/namespace`, of the public catalog, the organization's own models and its Spaces' models.
   */
  async allowableNames(tx: Tx, orgId: string): Promise<string[]> {
    const rows = await tx.model.findMany({
      where: { OR: [PUBLIC_CATALOG, { org_id: orgId }, { app: { org_id: orgId } }] },
      select: { model: true, provider: true, namespace: true },
    });
    return [...new Set(rows.flatMap((row) => [row.model, `${row.provider}/${row.namespace}`]))];
  },

  /** model id → when it was added, for these ids. */
  async addedOn(db: Tx, ids: string[]): Promise<Map<string, Date>> {
    const rows = await db.model.findMany({ where: { id: { in: ids } }, select: { id: true, added_on: true } });
    return new Map(rows.map((row) => [row.id, row.added_on]));
  },

  /** model id → active, for the models that have a row in this Space. */
  async activeStates(tx: Tx, appId: string): Promise<Map<string, boolean>> {
    const rows = await tx.appModel.findMany({ where: { app_id: appId }, select: { model_id: true, active: true } });
    return new Map(rows.map((row) => [row.model_id, row.active]));
  },

  /** Models the router may pick in this Space: active here and not switched off by a service owner. */
  countUsable(tx: Tx, appId: string): Promise<number> {
    return tx.appModel.count({ where: { app_id: appId, active: true, model: { globally_disabled: false } } });
  },

  /**
   * Holds the models (`FOR KEY SHARE`) until the transaction ends, before it reads them to write rows
   * that reference them (a Space's state, a failover link): a delete of one that started first commits
   * before this returns, so the reads that follow no longer see it (a 404 or 400 rather than a foreign-key
   * violation), and one that starts later waits for this transaction. `ids` are uuids (checked at the edge).
   */
  async hold(tx: Tx, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await tx.$queryRaw`SELECT id FROM models WHERE id = ANY(${ids}::uuid[]) FOR KEY SHARE`;
  },

  async setActive(tx: Tx, { app_id, model_id, active }: { app_id: string; model_id: string; active: boolean }): Promise<void> {
    await tx.appModel.upsert({ where: { app_id_model_id: { app_id, model_id } }, create: { app_id, model_id, active }, update: { active } });
  },

  async failoverChain(tx: Tx, appId: string): Promise<ModelWithParent[]> {
    const links = await tx.failoverEntry.findMany({
      where: { app_id: appId },
      orderBy: { position: 'asc' },
      include: { model: { include: WITH_PARENT } },
    });
    return links.map((link) => link.model);
  },

  findFailoverLink(tx: Tx, appId: string, modelId: string): Promise<FailoverLink | null> {
    return tx.failoverEntry.findUnique({ where: { app_id_model_id: { app_id: appId, model_id: modelId } }, select: { model_id: true, position: true } });
  },

  async replaceFailoverChain(tx: Tx, appId: string, modelIds: string[]): Promise<void> {
    await tx.failoverEntry.deleteMany({ where: { app_id: appId } });
    if (modelIds.length === 0) return;
    await tx.failoverEntry.createMany({ data: modelIds.map((modelId, position) => ({ app_id: appId, model_id: modelId, position })) });
  },

  /** Makes `to`'s model states and failover chain equal to `from`'s. */
  async copyModelState(tx: Tx, from: string, to: string): Promise<void> {
    const states = await tx.appModel.findMany({ where: { app_id: from }, select: { model_id: true, active: true } });
    const links = await tx.failoverEntry.findMany({ where: { app_id: from }, select: { model_id: true, position: true } });
    await tx.appModel.deleteMany({ where: { app_id: to } });
    await tx.failoverEntry.deleteMany({ where: { app_id: to } });
    if (states.length > 0) await tx.appModel.createMany({ data: states.map((s) => ({ ...s, app_id: to })) });
    if (links.length > 0) await tx.failoverEntry.createMany({ data: links.map((l) => ({ ...l, app_id: to })) });
  },
};
