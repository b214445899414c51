import type { Prisma } from '../../generated/prisma/client';
import type { ConversationSettings, ConversationView } from '../../schemas/conversations';
import type { ConversationRow } from '../../store/conversations';

/** Reads the stored settings leniently: a key that is absent or not a string is null. */
function settingsOf(json: Prisma.JsonValue): ConversationSettings {
  const stored = typeof json === 'object' && json !== null && !Array.isArray(json) ? json : {};
  const idAt = (key: keyof ConversationSettings): string | null => {
    const value = stored[key];
    return typeof value === 'string' ? value : null;
  };
  return { assistant_id: idAt('assistant_id'), assistant_version_id: idAt('assistant_version_id') };
}

export function presentConversation(row: ConversationRow): ConversationView {
  return {
    id: row.id,
    app_id: row.app_id,
    name: row.name,
    added_on: row.added_on.toISOString(),
    modified_on: row.modified_on.toISOString(),
    deleted_on: row.deleted_on ? row.deleted_on.toISOString() : null,
    settings: settingsOf(row.settings),
  };
}
