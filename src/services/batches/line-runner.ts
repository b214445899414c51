import { createHash } from 'node:crypto';
import type { Prisma } from '../../generated/prisma/client';
import type { CompletionFailure } from '../../domain/completion';
import { ApiError } from '../../errors/api-error';
import { apiErrorFromZod } from '../../errors/zod-error';
import type { LineOutcome } from '../../formats/openai-batch-line';
import type { DetachedRun } from '../../pipeline/completion-runner';
import type { SpaceContext } from '../../store/space-context';
import type { BatchLineJob, CompletionJob } from '../../queue/payloads';
import { completionRequestSchema } from '../../schemas/chat-completions';
import { unforwardedFieldError } from '../../schemas/forwarded-fields';
import { decideCompletion, privacyOf } from '../../intake/decide-completion';
import type { BatchLineRepository } from '../../store/batch-lines';
import type { BatchRepository, BatchRow } from '../../store/batches';
import type { LineFeeder } from './line-feeder';

export interface LineRunnerDeps {
  batches: BatchRepository;
  lines: BatchLineRepository;
  feeder: LineFeeder;
  /** The Space and its configuration stamp, as the API would hand them to a completion job. */
  findSpace(appId: string): Promise<{ space: SpaceContext | null; stamp: string }>;
  /** The completion worker's runner, for a job nobody waits for live; null when another run of the line holds its claim. */
  runDetached(job: CompletionJob, signal: AbortSignal): Promise<DetachedRun | null>;
  /** Longest a line's completion may take, in ms (COMPLETION_TIMEOUT_MS). */
  timeoutMs: number;
  /** The model name that asks for automatic selection (AUTO_MODEL_NAME). */
  autoModelName: string;
}

/** What a line job reports to bull-board: ids and statuses only, never the conversation. */
export interface LineReport {
  state: 'succeeded' | 'failed' | 'skipped';
  status_code?: number;
  request_id?: string;
}

/**
 * The request id of a batch line's completion (its log's id): the same for every run of the line, so a run
 * of a line job handed out twice finds the first run's claim (docs/reliability.md, "Runs at most once").
 * A UUID built from the batch and line (SHA-256, version and variant bits set as for a name-based UUID).
 */
export function lineRequestId(batchId: string, line: number): string {
  const hex = createHash('sha256').update(`${batchId}:${line}`, 'utf8').digest('hex');
  const variant = ((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function failed(error: ApiError): CompletionFailure {
  return error.toFailure();
}

/**
 * Runs one batch line as a real completion of its batch's Space, through the same runner as
 * `POST /v1/chat/completions` (routing, plugins, retries and failover, a log with cost and savings),
 * and records its one outcome by (batch, line).
 */
export class LineRunner {
  constructor(private readonly deps: LineRunnerDeps) {}

  async run({ batchId, line }: BatchLineJob, signal: AbortSignal): Promise<LineReport> {
    const batch = await this.deps.batches.byId(batchId);
    // Cancelled or expired meanwhile: the coordinator settles the line.
    if (!batch || batch.status !== 'in_progress') return { state: 'skipped' };
    const claimed = await this.deps.lines.claim(batchId, line);
    if (!claimed) return { state: 'skipped' };
    const requestId = lineRequestId(batchId, line);
    const outcome = await this.outcomeOf(batch, { requestId, body: claimed.body, signal });
    // The line's job was handed out again while its first run goes on (a Redis failover): that run records it.
    if (outcome === null) return { state: 'skipped' };
    const state = 'result' in outcome ? 'succeeded' : 'failed';
    await this.deps.lines.finish(batchId, line, { state, requestId, outcome: outcome as unknown as Prisma.InputJsonValue });
    await this.deps.feeder.feed(batch);
    return { state, status_code: 'result' in outcome ? 200 : outcome.failure.status, request_id: requestId };
  }

  private async outcomeOf(
    batch: BatchRow,
    { requestId, body, signal }: { requestId: string; body: unknown; signal: AbortSignal },
  ): Promise<LineOutcome | null> {
    const parsed = completionRequestSchema.safeParse(body);
    if (!parsed.success) return { failure: failed(apiErrorFromZod(parsed.error, 'body')) };
    const { space, stamp } = await this.deps.findSpace(batch.app_id);
    if (!space) return { failure: failed(ApiError.notFound('Space', 'Authorization')) };
    if (!space.isActive) return { failure: failed(new ApiError('space_inactive', 'This Space is deactivated.')) };
    const unforwarded = unforwardedFieldError(parsed.data, space.settings.forward_fields);
    if (unforwarded) return { failure: failed(new ApiError(unforwarded.code, unforwarded.message, `body.${unforwarded.param ?? ''}`)) };
    const decided = decideCompletion(parsed.data, { space, privacy: privacyOf(space, parsed.data), headerFlags: {}, autoModelName: this.deps.autoModelName });
    if (!decided.privacy.keepsAnswer) {
      return {
        failure: failed(
          new ApiError(
            'invalid_request',
            "The Space's privacy level became 3 (nothing kept) while the batch ran: its remaining lines are refused.",
            'policies.privacy_level',
          ),
        ),
      };
    }
    const receivedAt = Date.now();
    const job: CompletionJob = {
      requestId,
      orgId: batch.org_id,
      appId: batch.app_id,
      spaceStamp: stamp,
      idpId: batch.idp_id,
      request: decided.request,
      privacyLevel: decided.privacy.level,
      payload: decided.payload,
      deadline: receivedAt + this.deps.timeoutMs,
      receivedAt,
    };
    const run = await this.deps.runDetached(job, signal);
    if (run === null) return null;
    return 'result' in run.ended ? { result: run.ended.result } : { failure: run.ended.failure };
  }
}
