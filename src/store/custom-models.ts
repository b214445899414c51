import type { Model, Prisma } from '../generated/prisma/client';
import type { Tx } from './db';
import { PUBLIC_CATALOG, type ModelWithParent } from './models';

/** An organization's own models (`org_id` set, no `app_id`): the ones `/v1/custom_models` manages. */
const ofOrg = (orgId: string): Prisma.ModelWhereInput => ({ org_id: orgId, app_id: null });

export const customModelStore = {
  list(tx: Tx, orgId: string): Promise<ModelWithParent[]> {
    return tx.model.findMany({ where: ofOrg(orgId), include: { parent: true }, orderBy: [{ model: 'asc' }, { id: 'asc' }] });
  },

  find(tx: Tx, { orgId, id }: { orgId: string; id: string }): Promise<ModelWithParent | null> {
    return tx.model.findFirst({ where: { ...ofOrg(orgId), id }, include: { parent: true } });
  },

  /**
   * A model the organization's requests could already mean by this name: a public catalog model, or
   * one of its own (the organization's or one of its Spaces'). `exceptId` skips the model being renamed.
   */
  findNameClash(tx: Tx, { orgId, name, exceptId }: { orgId: string; name: string; exceptId?: string }): Promise<Pick<Model, 'id'> | null> {
    return tx.model.findFirst({
      where: { model: name, id: exceptId ? { not: exceptId } : undefined, OR: [PUBLIC_CATALOG, { org_id: orgId }, { app: { org_id: orgId } }] },
      select: { id: true },
    });
  },

  /** A model whose quality profile a custom model may copy: visible to the organization, by name. */
  findProfileSource(tx: Tx, { orgId, name }: { orgId: string; name: string }): Promise<Pick<Model, 'quality_profile'> | null> {
    return tx.model.findFirst({ where: { model: name, OR: [PUBLIC_CATALOG, ofOrg(orgId)] }, select: { quality_profile: true } });
  },

  /** Serialises creations and renames within one organization, so two requests cannot take one name. */
  async lockNames(tx: Tx, orgId: string): Promise<void> {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`custom-models:${orgId}`}))`;
  },

  create(tx: Tx, data: Prisma.ModelUncheckedCreateInput): Promise<ModelWithParent> {
    return tx.model.create({ data, include: { parent: true } });
  },

  update(tx: Tx, id: string, data: Prisma.ModelUncheckedUpdateInput): Promise<ModelWithParent> {
    return tx.model.update({ where: { id }, data, include: { parent: true } });
  },

  async remove(tx: Tx, id: string): Promise<void> {
    await tx.model.delete({ where: { id } });
  },

  /** The Spaces that have a state for the model: their cached configuration must be reloaded after a change. */
  async spacesUsing(tx: Tx, id: string): Promise<string[]> {
    const rows = await tx.appModel.findMany({ where: { model_id: id }, select: { app_id: true } });
    return rows.map((row) => row.app_id);
  },
};
