import type { Prisma } from '../generated/prisma/client';
import type { Tx } from './db';

export interface NewApp {
  orgId: string;
  idpId: string;
  name: string;
  description?: string;
  appLogo?: string;
  rateLimit?: number;
  /** Makes the new Space a sandbox copy of this one. */
  sandboxOf?: string;
  extra?: Omit<Prisma.AppUncheckedCreateInput, 'org_id' | 'name' | 'idp_id'>;
}

/** Public catalog models switched on for every new Space. */
const DEFAULT_MODELS: Prisma.ModelWhereInput = {
  default_active: true,
  is_public: true,
  globally_disabled: false,
  app_id: null,
  org_id: null,
};

/** Creates a Space and activates the catalog's default-active models in it. */
export async function createAppWithDefaults(tx: Tx, app: NewApp) {
  const created = await tx.app.create({
    data: {
      ...app.extra,
      org_id: app.orgId,
      idp_id: app.idpId,
      modified_by: app.idpId,
      name: app.name,
      description: app.description ?? '',
      app_logo: app.appLogo ?? '',
      rate_limit: app.rateLimit ?? 0,
      sandbox_of: app.sandboxOf ?? null,
    },
  });
  const defaults = await tx.model.findMany({ where: DEFAULT_MODELS, select: { id: true } });
  if (defaults.length > 0) {
    await tx.appModel.createMany({ data: defaults.map((m) => ({ app_id: created.id, model_id: m.id, active: true })) });
  }
  return created;
}
