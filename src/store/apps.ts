import type { Prisma } from '../generated/prisma/client';
import type { PageQuery } from '../schemas/common';
import type { SandboxStatus } from '../schemas/apps';
import type { Db, Tx } from './db';
import { afterCursor, NEWEST_FIRST, unknownCursor } from './pagination';

/** What a Space response needs besides the row itself. */
export const APP_INCLUDE = { prompt: true, benchmark_model: { include: { parent: true } } } as const satisfies Prisma.AppInclude;
export type AppRow = Prisma.AppGetPayload<{ include: typeof APP_INCLUDE }>;

export interface SandboxStatusChange {
  status: SandboxStatus;
  /** Change only a Space whose status is this one. */
  onlyFrom?: SandboxStatus;
  /** Also record when the sandbox was last copied. */
  syncedOn?: Date | null;
}

/** Spaces. Each function takes a transaction client (a plain client works too). */
const SPACE_REF = { id: true, org_id: true, name: true } as const;
export type SpaceRefRow = Prisma.AppGetPayload<{ select: typeof SPACE_REF }>;

export const appStore = {
  /** The Space's stored `settings` JSON, or undefined when there is no such Space. */
  async settingsOf(db: Db | Tx, id: string): Promise<Prisma.JsonValue | undefined> {
    const app = await db.app.findUnique({ where: { id }, select: { settings: true } });
    return app ? app.settings : undefined;
  },

  async addedOn(db: Db | Tx, id: string): Promise<Date | undefined> {
    return (await db.app.findUnique({ where: { id }, select: { added_on: true } }))?.added_on;
  },

  /** A Space by id, within one organization when `orgId` is given (the CLI's `--space`). */
  findRefById(db: Db | Tx, { id, orgId }: { id: string; orgId?: string }): Promise<SpaceRefRow | null> {
    return db.app.findFirst({ where: { id, ...(orgId ? { org_id: orgId } : {}) }, select: SPACE_REF });
  },

  /** Main Spaces (not sandboxes) of this name, oldest first, at most `take`. */
  findRefsByName(db: Db | Tx, { name, orgId, take }: { name: string; orgId?: string; take: number }): Promise<SpaceRefRow[]> {
    return db.app.findMany({ where: { name, sandbox_of: null, ...(orgId ? { org_id: orgId } : {}) }, select: SPACE_REF, orderBy: { added_on: 'asc' }, take });
  },

  findById(tx: Tx, id: string): Promise<AppRow | null> {
    return tx.app.findUnique({ where: { id }, include: APP_INCLUDE });
  },

  findSandboxOf(tx: Tx, mainId: string): Promise<AppRow | null> {
    return tx.app.findUnique({ where: { sandbox_of: mainId }, include: APP_INCLUDE });
  },

  /**
   * Locks the Space's row until the transaction ends. Updates merge JSON columns read-modify-write,
   * and the sandbox status is decided from what is stored, so writers to a main Space and its
   * sandbox take the main's lock first and run one after another.
   */
  async lock(tx: Tx, id: string): Promise<void> {
    await tx.$queryRaw`SELECT id FROM apps WHERE id = ${id}::uuid FOR UPDATE`;
  },

  async listMain(tx: Tx, orgId: string, query: PageQuery): Promise<AppRow[]> {
    const where: Prisma.AppWhereInput = { org_id: orgId, sandbox_of: null };
    const conditions: Prisma.AppWhereInput[] = [where];
    if (query.after) {
      const cursor = await tx.app.findFirst({ where: { ...where, id: query.after }, select: { id: true, added_on: true } });
      if (!cursor) throw unknownCursor();
      conditions.push(afterCursor(cursor));
    }
    return tx.app.findMany({ where: { AND: conditions }, include: APP_INCLUDE, orderBy: NEWEST_FIRST, take: query.limit + 1 });
  },

  async update(tx: Tx, id: string, data: Prisma.AppUncheckedUpdateInput): Promise<void> {
    await tx.app.update({ where: { id }, data });
  },

  createSandbox(tx: Tx, data: Prisma.AppUncheckedCreateInput & { sandbox_of: string }) {
    return tx.app.create({ data });
  },

  /**
   * Sandbox bookkeeping is not a change of the Space's configuration, so it goes around Prisma's
   * `@updatedAt` and leaves `modified_on` alone.
   */
  async setSandboxStatus(tx: Tx, id: string, { status, onlyFrom, syncedOn = null }: SandboxStatusChange): Promise<void> {
    if (onlyFrom) {
      await tx.$executeRaw`UPDATE apps SET sandbox_status = ${status}::sandbox_status WHERE id = ${id}::uuid AND sandbox_status = ${onlyFrom}::sandbox_status`;
      return;
    }
    await tx.$executeRaw`UPDATE apps SET sandbox_status = ${status}::sandbox_status, sandbox_synced_on = COALESCE(${syncedOn}::timestamptz, sandbox_synced_on) WHERE id = ${id}::uuid`;
  },
};
