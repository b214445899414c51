import { ApiError } from '../../errors/api-error';
import type { Tx } from '../../store/db';
import { modelStore, type ModelScope } from '../../store/models';
import { referenceStore } from '../../store/space-references';
import { promptStatus } from '../../schemas/prompt-state';

/** Ids a Space's configuration points at; only the ones a request sends (non-null) are checked. */
export interface SpaceReferences {
  benchmarkModelId?: string | null;
  promptId?: string | null;
  assistantId?: string | null;
  assistantVersionId?: string | null;
  /** The settings after the merge: a version must belong to the assistant they name. */
  merged: { assistantId: string | null; assistantVersionId: string | null };
}

function invalid(param: string, what: string): ApiError {
  return new ApiError('invalid_value', `Invalid value for '${param}': ${what}.`, param);
}

async function checkBenchmark(tx: Tx, scope: ModelScope, id: string): Promise<void> {
  if (!(await modelStore.findVisible(tx, scope, id))) throw invalid('benchmark_model_id', 'no model with this id is available to this Space');
}

/** A Space may use its own organization's prompts and approved public ones. */
async function checkPrompt(tx: Tx, orgId: string, id: string): Promise<void> {
  const prompt = await referenceStore.prompt(tx, id);
  if (!prompt || (prompt.org_id !== orgId && promptStatus(prompt) !== 'approved')) {
    throw invalid('policies.prompt_id', 'no prompt with this id is available to this organization');
  }
}

async function checkAssistant(tx: Tx, appIds: string[], id: string): Promise<void> {
  if (!(await referenceStore.hasAssistant(tx, { appIds, id }))) throw invalid('settings.assistant_id', 'no assistant with this id belongs to this Space');
}

async function checkAssistantVersion(tx: Tx, appIds: string[], id: string): Promise<void> {
  if (!(await referenceStore.hasAssistantVersion(tx, { appIds, id })))
    throw invalid('settings.assistant_version_id', 'no assistant version with this id belongs to this Space');
}

async function checkVersionOfAssistant(tx: Tx, merged: SpaceReferences['merged']): Promise<void> {
  if (merged.assistantId === null || merged.assistantVersionId === null) return;
  const assistantId = await referenceStore.assistantOfVersion(tx, merged.assistantVersionId);
  if (assistantId !== undefined && assistantId !== merged.assistantId) {
    throw invalid('settings.assistant_version_id', "the version belongs to another assistant than 'settings.assistant_id'");
  }
}

/**
 * Checks that every id the request sets names something the Space may use. Assistants of a
 * sandbox's main Space count as the sandbox's own, since the sandbox's settings are copied from it.
 */
export async function checkReferences(tx: Tx, scope: ModelScope, refs: SpaceReferences): Promise<void> {
  if (refs.benchmarkModelId) await checkBenchmark(tx, scope, refs.benchmarkModelId);
  if (refs.promptId) await checkPrompt(tx, scope.orgId, refs.promptId);
  if (refs.assistantId) await checkAssistant(tx, scope.appIds, refs.assistantId);
  if (refs.assistantVersionId) await checkAssistantVersion(tx, scope.appIds, refs.assistantVersionId);
  if (refs.assistantId !== undefined || refs.assistantVersionId !== undefined) await checkVersionOfAssistant(tx, refs.merged);
}
