import type { AuthContext } from '../../auth/auth-context';
import type { AssistantVersion } from '../../generated/prisma/client';
import { assistantConfigSchema, type AssistantConfig, type AssistantDetailView, type AssistantView } from '../../schemas/assistants';
import type { AssistantRow } from '../../store/assistants';
import { canSeeDefinition } from './assistant-access';

export function currentVersion(row: AssistantRow): AssistantVersion {
  const version = row.versions[0];
  // Version 1 is written in the same statement as the assistant, so this is a broken row.
  if (!version) throw new Error(`assistant ${row.id} has no version`);
  return version;
}

/** Stored configurations were validated by the same schema when written. */
export function storedConfig(version: AssistantVersion): AssistantConfig | null {
  return assistantConfigSchema.nullable().parse(version.assistant_config);
}

export function presentAssistant(row: AssistantRow): AssistantView {
  return {
    id: row.id,
    app_id: row.app_id,
    slug: row.slug,
    name: row.name,
    avatar: row.avatar,
    description: row.description,
    visibility: row.visibility,
    definition_visibility: row.definition_visibility,
    version_id: currentVersion(row).id,
    added_on: row.added_on.toISOString(),
  };
}

/** The assistant with its current version; `assistant_config` only for callers who may see the definition. */
export function presentAssistantDetail(row: AssistantRow, auth: Pick<AuthContext, 'idpId'>): AssistantDetailView {
  const version = currentVersion(row);
  const detail: AssistantDetailView = { ...presentAssistant(row), version: version.version };
  if (canSeeDefinition(auth, row)) detail.assistant_config = storedConfig(version);
  return detail;
}
