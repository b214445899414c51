import type { Prisma } from '../generated/prisma/client';
import { assistantConfigSchema, type AssistantConfig } from '../schemas/assistants';
import type { Db } from './db';
import { SHOWN_LOGS } from './logs';

export type { AssistantConfig };

/** Earlier turns replayed into a conversation, at most. */
export const MAX_HISTORY_TURNS = 50;

export interface StoredTurn {
  payload: Prisma.JsonValue;
  response: Prisma.JsonValue;
}

/** Reads what a completion builds on: assistants' configurations, a conversation's earlier turns, the request it follows. */
export class CompletionSources {
  constructor(private readonly db: Db) {}

  /**
   * The config of the assistant's given version, or of its newest one (null when unset or unreadable);
   * null when the assistant is not in this Space.
   */
  async assistantConfig(appId: string, assistantId: string, versionId: string | null): Promise<{ config: AssistantConfig | null } | null> {
    const assistant = await this.db.assistant.findFirst({
      where: { id: assistantId, app_id: appId },
      select: { versions: { where: versionId ? { id: versionId } : {}, orderBy: { version: 'desc' }, take: 1, select: { assistant_config: true } } },
    });
    const version = assistant?.versions[0];
    if (!assistant || !version) return null;
    const parsed = assistantConfigSchema.nullable().safeParse(version.assistant_config);
    return { config: parsed.success ? parsed.data : null };
  }

  conversationExists(appId: string, conversationId: string): Promise<boolean> {
    return this.db.conversation.count({ where: { id: conversationId, app_id: appId, deleted_on: null } }).then((n) => n > 0);
  }

  /**
   * Whether the organization has a request (log) of this id that its keys can read (`GET /v1/logs/{id}`):
   * what `parent_request_id` may name. One primary-key lookup.
   */
  requestExists(orgId: string, requestId: string): Promise<boolean> {
    return this.db.log.count({ where: { id: requestId, org_id: orgId, ...SHOWN_LOGS } }).then((n) => n > 0);
  }

  /**
   * The conversation's answered turns, oldest first. Only privacy level 1 turns keep their text, so
   * only they can be replayed.
   */
  async history(conversationId: string): Promise<StoredTurn[]> {
    const rows = await this.db.log.findMany({
      where: { conversation_id: conversationId, parent_id: null, privacy_level: 1, status_code: 200 },
      orderBy: { timestamp: 'desc' },
      take: MAX_HISTORY_TURNS,
      select: { payload: true, response: true },
    });
    return rows.reverse();
  }
}
