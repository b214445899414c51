import type { PromptStatus } from './prompts';

export interface ReviewStamps {
  published_on: Date | null;
  reviewed_on: Date | null;
  approved_on: Date | null;
  decline_reason: string | null;
}

/**
 * The review state is derived from the stamps:
 * draft (nothing set) → pending (published_on) → approved (reviewed_on + approved_on) or declined (reviewed_on + decline_reason).
 */
export function promptStatus(stamps: ReviewStamps): PromptStatus {
  if (stamps.published_on === null) return 'draft';
  if (stamps.reviewed_on === null) return 'pending';
  return stamps.approved_on !== null ? 'approved' : 'declined';
}

export type ReviewAction = 'publish' | 'withdraw' | 'approve' | 'decline';

/** Which states each action may start from; anything else is a 409. */
export const ALLOWED_FROM: Record<ReviewAction, readonly PromptStatus[]> = {
  publish: ['draft', 'declined'],
  withdraw: ['pending', 'approved', 'declined'],
  approve: ['pending'],
  decline: ['pending'],
};

export const CLEARED: ReviewStamps = { published_on: null, reviewed_on: null, approved_on: null, decline_reason: null };

export interface Transition {
  action: ReviewAction;
  now: Date;
  /** Required for `decline`. */
  reason?: string;
}

/** The stamps after an action; the caller has checked ALLOWED_FROM. */
export function stampsAfter(current: ReviewStamps, { action, now, reason }: Transition): ReviewStamps {
  switch (action) {
    case 'publish':
      return { ...CLEARED, published_on: now };
    case 'withdraw':
      return CLEARED;
    case 'approve':
      return { ...current, reviewed_on: now, approved_on: now, decline_reason: null };
    case 'decline':
      return { ...current, reviewed_on: now, approved_on: null, decline_reason: reason ?? '' };
  }
}
