import { logit, sigmoid } from '../learned/linear-models';
import { MIN_RATINGS, type FeedbackCell } from './feedback-cell';

/** Pseudo-count (Jeffreys-like) added to both the good and the expected rate, so 0 or all good stays finite. */
const SMOOTHING = 0.5;

/** How far the ratings are from what the offline model expected, in logits; 0 with no ratings. */
function observedShift(cell: FeedbackCell): number {
  const n = Math.max(0, cell.ratings);
  if (n === 0) return 0;
  const good = Math.min(n, Math.max(0, cell.good));
  const expected = Math.min(n, Math.max(0, cell.expected));
  return logit((good + SMOOTHING) / (n + 2 * SMOOTHING)) - logit((expected + SMOOTHING) / (n + 2 * SMOOTHING));
}

/** Weight of `n` ratings against a prior worth MIN_RATINGS of them: n / (n + MIN_RATINGS). */
function evidenceWeight(cell: FeedbackCell | undefined): number {
  const n = Math.max(0, cell?.ratings ?? 0);
  return n / (n + MIN_RATINGS);
}

export interface FeedbackCells {
  /** All of the Space's ratings of the model, whatever the kind of prompt. */
  model?: FeedbackCell;
  /** The Space's ratings of the model on this kind of prompt. */
  kind?: FeedbackCell;
}

/**
 * The offline quality corrected by the Space's ratings, by hierarchical shrinkage in logit space:
 *
 *   d(c)     = logit((good + ½) / (n + 1)) − logit((expected + ½) / (n + 1))   for a cell c of n ratings
 *   w(c)     = n / (n + MIN_RATINGS)
 *   δ_model  = w(model) · d(model)
 *   δ_kind   = δ_model + w(kind) · (d(kind) − δ_model)
 *   quality  = σ(logit(offline) + δ_kind)
 *
 * `d` is how much better (or worse) users rated the model than the offline model predicted for the
 * same answers, as a shift of log-odds; with no ratings it is 0 and `offline` comes back unchanged.
 * The weight reaches ½ at MIN_RATINGS ratings, so until then the offline model outweighs the
 * ratings. The kind's own evidence refines the model-level shift; a kind with few ratings borrows it.
 */
export function adjustedQuality(offline: number, cells: FeedbackCells): number {
  const modelShift = cells.model ? evidenceWeight(cells.model) * observedShift(cells.model) : 0;
  const kindShift = cells.kind ? modelShift + evidenceWeight(cells.kind) * (observedShift(cells.kind) - modelShift) : modelShift;
  if (kindShift === 0) return offline;
  return sigmoid(logit(offline) + kindShift);
}
