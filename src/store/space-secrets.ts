import type { Db, Tx } from './db';

/** One Space's sealed secrets by name (see SecretBox for the format). */
export type SealedSecrets = Map<string, string>;

/** The `space_secrets` table. It holds sealed values only: sealing and opening is the caller's. */
export const spaceSecretStore = {
  async put(tx: Tx, { appId, name, sealed }: { appId: string; name: string; sealed: string }): Promise<void> {
    await tx.spaceSecret.upsert({
      where: { app_id_name: { app_id: appId, name } },
      create: { app_id: appId, name, sealed },
      update: { sealed },
    });
  },

  /** Stores the secret unless the Space has one of this name (two writers at once: the first one's stays). */
  async putIfAbsent(db: Db | Tx, { appId, name, sealed }: { appId: string; name: string; sealed: string }): Promise<void> {
    await db.spaceSecret.createMany({ data: [{ app_id: appId, name, sealed }], skipDuplicates: true });
  },

  async remove(tx: Tx, { appId, name }: { appId: string; name: string }): Promise<void> {
    await tx.spaceSecret.deleteMany({ where: { app_id: appId, name } });
  },

  /** The Space's secrets whose names start with `prefix` (e.g. `social-post.`). */
  async list(db: Db | Tx, { appId, prefix }: { appId: string; prefix: string }): Promise<SealedSecrets> {
    const rows = await db.spaceSecret.findMany({ where: { app_id: appId, name: { startsWith: prefix } }, select: { name: true, sealed: true } });
    return new Map(rows.map((row) => [row.name, row.sealed]));
  },
};
