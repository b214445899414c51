import { can, type AuthContext } from '../../auth/auth-context';
import { ApiError } from '../../errors/api-error';
import type { PageQuery, Page } from '../../schemas/common';
import type { PromptStatus, PromptView } from '../../schemas/prompts';
import type { PromptRepository, PromptRow, PromptScope } from '../../store/prompts';
import { countTokens } from '../../text/token-count';
import { presentPrompt } from './present-prompt';
import { ALLOWED_FROM, CLEARED, promptStatus, stampsAfter, type ReviewAction } from '../../schemas/prompt-state';
import { toPage } from '../../store/pagination';
import { screenPrompt } from './prompt-screening';

export type ScreeningOutcome = 'stale' | 'awaiting_review' | 'declined';

export interface PromptInput {
  prompt: string;
  title: string;
  description: string;
}

/** Called after a prompt is submitted for publication (enqueues the automated screening). */
export type OnSubmitted = (prompt: PromptRow) => Promise<void>;

export interface PromptListQuery extends PageQuery {
  status?: PromptStatus;
  scope: 'organization' | 'public' | 'review';
}

export class PromptService {
  constructor(
    private readonly prompts: PromptRepository,
    private readonly onSubmitted: OnSubmitted,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async create(auth: AuthContext, input: PromptInput): Promise<PromptView> {
    const row = await this.prompts.create({ ...input, tokens: countTokens(input.prompt), org_id: auth.orgId, added_by: auth.idpId, is_public: false });
    return presentPrompt(row);
  }

  /** A service owner's public prompt needs no review: it is published and approved at once. */
  async createPublic(auth: AuthContext, input: PromptInput): Promise<PromptView> {
    const now = this.clock();
    const row = await this.prompts.create({
      ...input,
      tokens: countTokens(input.prompt),
      org_id: auth.orgId,
      added_by: auth.idpId,
      is_public: true,
      published_on: now,
      reviewed_on: now,
      approved_on: now,
    });
    return presentPrompt(row);
  }

  /** Changing what an organization's prompt says sends it back to draft: what was reviewed is no longer what is there. */
  async update(auth: AuthContext, input: PromptInput & { id: string }): Promise<PromptView> {
    const current = await this.ownPrompt(auth, { id: input.id, param: 'id' });
    if (current.is_public && !can(auth, 'prompts:create_public')) {
      throw new ApiError('permission_denied', 'Only a service owner may edit a public prompt.');
    }
    const changed = current.prompt !== input.prompt || current.title !== input.title || current.description !== input.description;
    const resetReview = changed && !current.is_public && promptStatus(current) !== 'draft';
    const row = await this.prompts.update(current.id, {
      prompt: input.prompt,
      title: input.title,
      description: input.description,
      tokens: countTokens(input.prompt),
      ...(resetReview ? CLEARED : {}),
    });
    return presentPrompt(row);
  }

  /** Own organization's prompts, approved public ones, and (for reviewers) everything. */
  async get(auth: AuthContext, id: string): Promise<PromptView> {
    const row = await this.prompts.findById(id);
    if (!row || !this.canRead(auth, row)) throw ApiError.notFound('Prompt', 'prompt_id');
    return presentPrompt(row);
  }

  async list(auth: AuthContext, query: PromptListQuery): Promise<Page<PromptView>> {
    if (query.scope === 'review' && !can(auth, 'prompts:review')) {
      throw new ApiError('permission_denied', "Only a service owner may list with scope 'review'.", 'scope');
    }
    const scope: PromptScope = query.scope === 'organization' ? { kind: 'organization', orgId: auth.orgId } : { kind: query.scope };
    const rows = await this.prompts.list(scope, query);
    return toPage(rows, query, presentPrompt);
  }

  async publish(auth: AuthContext, id: string): Promise<PromptView> {
    const row = await this.move(await this.ownPrompt(auth, { id, param: 'prompt_id' }), { action: 'publish' });
    await this.onSubmitted(row);
    return presentPrompt(row);
  }

  async withdraw(auth: AuthContext, id: string): Promise<PromptView> {
    return presentPrompt(await this.move(await this.ownPrompt(auth, { id, param: 'prompt_id' }), { action: 'withdraw' }));
  }

  async approve(id: string): Promise<PromptView> {
    return presentPrompt(await this.move(await this.anyPrompt(id), { action: 'approve' }));
  }

  async decline(id: string, reason: string): Promise<PromptView> {
    return presentPrompt(await this.move(await this.anyPrompt(id), { action: 'decline', reason }));
  }

  /**
   * The prompt-review job: declines a submission that fails automated screening, and leaves one that
   * passes pending for a service owner. A job for an older submission than the current one does nothing.
   */
  async screenSubmission(id: string, publishedOn: string): Promise<ScreeningOutcome> {
    const row = await this.prompts.findById(id);
    if (!row || promptStatus(row) !== 'pending' || row.published_on?.toISOString() !== publishedOn) return 'stale';
    const result = screenPrompt(row.prompt, row.tokens);
    if (result.passed) return 'awaiting_review';
    await this.move(row, { action: 'decline', reason: result.reason });
    return 'declined';
  }

  private canRead(auth: AuthContext, row: PromptRow): boolean {
    return row.org_id === auth.orgId || promptStatus(row) === 'approved' || can(auth, 'prompts:review');
  }

  /** `param` names where the id came from (the body's `id`, the path's `prompt_id`), for the 404. */
  private async ownPrompt(auth: AuthContext, ref: { id: string; param: 'id' | 'prompt_id' }): Promise<PromptRow> {
    const row = await this.prompts.findById(ref.id);
    if (!row || row.org_id !== auth.orgId) throw ApiError.notFound('Prompt', ref.param);
    return row;
  }

  private async anyPrompt(id: string): Promise<PromptRow> {
    const row = await this.prompts.findById(id);
    if (!row) throw ApiError.notFound('Prompt', 'prompt_id');
    return row;
  }

  private async move(row: PromptRow, step: { action: ReviewAction; reason?: string }): Promise<PromptRow> {
    const from = promptStatus(row);
    if (!ALLOWED_FROM[step.action].includes(from)) {
      throw new ApiError('invalid_state_transition', `Cannot ${step.action} a prompt that is ${from}.`);
    }
    const next = stampsAfter(row, { ...step, now: this.clock() });
    const moved = await this.prompts.transition(row.id, row, next);
    if (!moved) throw new ApiError('conflict', 'The prompt changed while this request ran; read it again and retry.');
    return moved;
  }
}
