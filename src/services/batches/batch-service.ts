import { privacyPolicyOf } from '../../domain/privacy-policy';
import type { AuthContext } from '../../auth/auth-context';
import { ApiError } from '../../errors/api-error';
import type { SpaceContext } from '../../store/space-context';
import { BATCH_ENDPOINT, COMPLETION_WINDOW, type BatchListQuery, type BatchView, type CreateBatchBody } from '../../schemas/batches';
import type { Page } from '../../schemas/common';
import type { BatchRepository, BatchRow } from '../../store/batches';
import type { OpenAiFileRow } from '../../store/openai-files';
import { toPage } from '../../store/pagination';
import { newBatchId } from '../openai-files/file-ids';
import { presentBatch } from './present-batch';

export interface BatchServiceDeps {
  batches: BatchRepository;
  /** The organization's file of that id, or null. */
  findFile(orgId: string, id: string): Promise<OpenAiFileRow | null>;
  /** The Space as completions see it (null: gone). */
  findSpace(appId: string): Promise<SpaceContext | null>;
  /** Queues the batch's coordinator (job id = batch id). */
  enqueue(batchId: string): Promise<void>;
  /** The completion window's length in seconds (`24h`; shorter in tests). */
  windowSeconds: number;
  /** This deployment's REDIS_PREFIX, whose queues run the batch. */
  queuePrefix: string;
}

function orNotFound(row: BatchRow | null): BatchRow {
  if (!row) throw ApiError.notFound('Batch', 'batch_id');
  return row;
}

/** Statuses a batch can be cancelled from. */
const CANCELLABLE = ['validating', 'in_progress'] as const;

/** OpenAI's Batch API, API side: create (checked, then coordinated on the `batches` queue), read, list, cancel. */
export class BatchService {
  constructor(private readonly deps: BatchServiceDeps) {}

  async create(auth: AuthContext, body: CreateBatchBody): Promise<BatchView> {
    if (body.endpoint !== BATCH_ENDPOINT)
      throw new ApiError('invalid_value', `Invalid value for 'endpoint': only '${BATCH_ENDPOINT}' is supported.`, 'endpoint');
    if (body.completion_window !== COMPLETION_WINDOW)
      throw new ApiError('invalid_value', `Invalid value for 'completion_window': only '${COMPLETION_WINDOW}' is supported.`, 'completion_window');
    const space = await this.spaceOf(auth);
    const file = await this.deps.findFile(auth.orgId, body.input_file_id);
    if (!file) throw ApiError.notFound('File', 'input_file_id');
    if (file.purpose !== 'batch')
      throw new ApiError('invalid_value', `Invalid value for 'input_file_id': the file's purpose is '${file.purpose}', not 'batch'.`, 'input_file_id');
    // One clock for both, so `expires_at - created_at` is the window exactly.
    const createdAt = new Date();
    const row = await this.deps.batches.create({
      id: newBatchId(),
      org_id: auth.orgId,
      app_id: space.id,
      idp_id: auth.idpId,
      queue_prefix: this.deps.queuePrefix,
      endpoint: body.endpoint,
      input_file_id: file.id,
      completion_window: body.completion_window,
      created_at: createdAt,
      expires_at: new Date(createdAt.getTime() + this.deps.windowSeconds * 1000),
      metadata: body.metadata ?? undefined,
    });
    await this.deps.enqueue(row.id);
    return presentBatch(row);
  }

  async get(auth: AuthContext, id: string): Promise<BatchView> {
    return presentBatch(orNotFound(await this.deps.batches.find(auth.orgId, id)));
  }

  async list(auth: AuthContext, query: BatchListQuery): Promise<Page<BatchView>> {
    return toPage(await this.deps.batches.list(auth.orgId, query), query, presentBatch);
  }

  /** `cancelling` at once; the coordinator stops the pending lines and ends the batch `cancelled`. */
  async cancel(auth: AuthContext, id: string): Promise<BatchView> {
    const batch = orNotFound(await this.deps.batches.find(auth.orgId, id));
    if (batch.status === 'cancelling' || batch.status === 'cancelled') return presentBatch(batch);
    const moved = await this.deps.batches.transition(id, CANCELLABLE, { status: 'cancelling', cancelling_at: new Date() });
    const now = orNotFound(await this.deps.batches.find(auth.orgId, id));
    if (!moved && now.status !== 'cancelling') throw new ApiError('invalid_state_transition', `A batch that is ${now.status} cannot be cancelled.`, 'batch_id');
    return presentBatch(now);
  }

  /**
   * A batch runs as completions of the key's Space. Privacy level 3 keeps nothing, and a batch must keep
   * its lines and results until it ends (OpenAI's Batch API is not zero-data-retention eligible either).
   */
  private async spaceOf(auth: AuthContext): Promise<SpaceContext> {
    if (!auth.appId)
      throw new ApiError('invalid_request', 'This key is not bound to a Space; batches need a Space key (see `cli keys create --app-id`).', 'Authorization');
    // Batch lines run later, without the key: a key limited to some models could not be held to them there.
    if (auth.allowedModels) {
      throw new ApiError('model_not_allowed', 'This key is limited to some models (allowed_models); batches need a key without such a list.', 'Authorization');
    }
    const space = await this.deps.findSpace(auth.appId);
    if (!space || space.orgId !== auth.orgId) throw ApiError.notFound('Space', 'Authorization');
    if (!space.isActive) throw new ApiError('space_inactive', 'This Space is deactivated.');
    if (!privacyPolicyOf(space.policies.privacy_level).keepsAnswer) {
      throw new ApiError(
        'invalid_request',
        "This Space's privacy level is 3 (nothing kept): a batch keeps its requests and answers until it ends, so batches are refused.",
        'policies.privacy_level',
      );
    }
    return space;
  }
}
