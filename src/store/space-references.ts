import type { Prompt } from '../generated/prisma/client';
import type { Tx } from './db';

/** What a Space's configuration may point at, read inside the transaction that writes it. */
export const referenceStore = {
  prompt(tx: Tx, id: string): Promise<Prompt | null> {
    return tx.prompt.findUnique({ where: { id } });
  },

  /** Whether an assistant of this id belongs to one of these Spaces. */
  async hasAssistant(tx: Tx, { appIds, id }: { appIds: string[]; id: string }): Promise<boolean> {
    return (await tx.assistant.findFirst({ where: { id, app_id: { in: appIds } }, select: { id: true } })) !== null;
  },

  /** Whether an assistant version of this id belongs to an assistant of one of these Spaces. */
  async hasAssistantVersion(tx: Tx, { appIds, id }: { appIds: string[]; id: string }): Promise<boolean> {
    return (await tx.assistantVersion.findFirst({ where: { id, assistant: { app_id: { in: appIds } } }, select: { id: true } })) !== null;
  },

  /** The assistant a version belongs to; undefined when there is no such version. */
  async assistantOfVersion(tx: Tx, versionId: string): Promise<string | undefined> {
    return (await tx.assistantVersion.findUnique({ where: { id: versionId }, select: { assistant_id: true } }))?.assistant_id;
  },
};
