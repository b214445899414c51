import type { PromptView } from '../../schemas/prompts';
import type { PromptRow } from '../../store/prompts';
import { promptStatus } from '../../schemas/prompt-state';

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

export function presentPrompt(row: PromptRow): PromptView {
  return {
    id: row.id,
    org_id: row.org_id,
    prompt: row.prompt,
    title: row.title,
    description: row.description,
    tokens: row.tokens,
    is_public: row.is_public,
    status: promptStatus(row),
    published_on: iso(row.published_on),
    reviewed_on: iso(row.reviewed_on),
    approved_on: iso(row.approved_on),
    decline_reason: row.decline_reason,
    added_on: row.added_on.toISOString(),
    modified_on: row.modified_on.toISOString(),
  };
}
