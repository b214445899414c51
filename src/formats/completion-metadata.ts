import type { CompletionResult } from '../domain/completion';
import type { CompletionMetadata } from '../schemas/chat-completions';

/**
 * Switchyard's figures of a finished completion as the spec's `metadata` object shows them, the same in
 * every API (OpenAI's chat completions and Responses, Anthropic's Messages). The worker serialises it
 * once, with the answer (`metadataJsonOf`), and the edges write that text as it is (`withJsonField`).
 */

/** `metadata.extra`: the plugins that ran (or not) and, with auto_tools, what it considered, picked and skipped. */
function extraOf({ plugins, autoTools }: CompletionResult['report']): CompletionMetadata['extra'] {
  if (autoTools) return plugins.length > 0 ? { plugins, auto_tools: autoTools } : { auto_tools: autoTools };
  return plugins.length > 0 ? { plugins } : {};
}

export function metadataOf({ model, statusCode, report }: CompletionResult): CompletionMetadata {
  return {
    app_id: report.appId,
    model: { model: model.model, namespace: model.namespace, provider: model.provider, owner: model.owner, at: model.at },
    costs: report.costs,
    cost_savings: report.savings,
    generated_artifacts: { items: report.artifacts },
    search_results: { items: report.searchResults },
    latency: report.latencyMs,
    labels: report.labels,
    error: report.error ?? '',
    scores: report.scores,
    score: report.score,
    temperature: report.temperature ?? null,
    max_tokens: report.maxTokens ?? null,
    status_code: statusCode,
    retries: report.retries,
    extra: extraOf(report),
    warning: report.warnings.join(' '),
  };
}

/** The metadata as JSON text: made once, by the worker that finished the run. */
export function metadataJsonOf(result: CompletionResult): string {
  return JSON.stringify(metadataOf(result));
}

/**
 * An object's JSON text with one more property, last, whose value is JSON text already: the metadata
 * goes into a body without being parsed and written again. `name` is a plain identifier.
 */
export function withJsonField(objectJson: string, name: string, valueJson: string): string {
  return objectJson === '{}' ? `{"${name}":${valueJson}}` : `${objectJson.slice(0, -1)},"${name}":${valueJson}}`;
}

/**
 * Where a chat completion carries Switchyard's metadata (the request's `x-switchyard-metadata` header):
 * the spec's `metadata` (the default), a top-level `switchyard` field (as the Responses API carries it),
 * or nowhere (the request's log keeps it). OpenAI's SDKs type `metadata` as a map of strings: the Python
 * SDK warns when it meets the object, and TypeScript code cannot read it without a cast.
 */
export type MetadataPlacement = 'metadata' | 'switchyard' | 'none';

export const METADATA_PLACEMENTS: readonly MetadataPlacement[] = ['metadata', 'switchyard', 'none'];

/** `objectJson` with the metadata's text where the placement puts it. */
export function withMetadata(objectJson: string, placement: MetadataPlacement, metadata: string): string {
  return placement === 'none' ? objectJson : withJsonField(objectJson, placement, metadata);
}
