/** Ratings a Space gave one model (on one kind of prompt, or on all of them). */
export interface FeedbackCell {
  /** Rated answers. */
  ratings: number;
  /** Answers rated good. */
  good: number;
  /** Sum of the offline model's predicted quality (0 to 1) of the rated answers. */
  expected: number;
}

/**
 * Ratings at which a Space's own evidence weighs as much as the offline model: below it the offline
 * estimate dominates, above it the ratings do. Also the count under which a model may be explored.
 * 100: in the MMLU-Pro replay (5 folds), a well-calibrated offline router lost 0.0095 of quality to
 * rating noise and selection bias (only the chosen model is ever rated) at 20, 0.006 at 50 and 0.002 at
 * 100, while all three recovered the same from a miscalibrated one.
 */
export const MIN_RATINGS = 100;

export const EMPTY_CELL: FeedbackCell = Object.freeze({ ratings: 0, good: 0, expected: 0 });

export function addCells(a: FeedbackCell, b: FeedbackCell): FeedbackCell {
  return { ratings: a.ratings + b.ratings, good: a.good + b.good, expected: a.expected + b.expected };
}
