import { adjustedQuality } from './adjusted-quality';
import { addCells, EMPTY_CELL, type FeedbackCell } from './feedback-cell';

/** One stored cell: a Space's ratings of one model on one kind of prompt. */
export interface FeedbackRow extends FeedbackCell {
  modelId: string;
  kind: string;
}

/** Everything one Space's ratings taught the router, indexed for the decision. */
export class SpaceFeedback {
  /** A Space with no ratings; shared, so nothing records into it. */
  static readonly EMPTY = new SpaceFeedback([]);

  private readonly cells = new Map<string, Map<string, FeedbackCell>>();
  private readonly totals = new Map<string, FeedbackCell>();

  constructor(rows: readonly FeedbackRow[]) {
    for (const { modelId, kind, ...cell } of rows) this.record(modelId, kind, cell);
  }

  /** Adds ratings to the model's cell of that kind (the replay's stream of ratings; never on EMPTY). */
  record(modelId: string, kind: string, cell: FeedbackCell): void {
    const kinds = this.cells.get(modelId) ?? new Map<string, FeedbackCell>();
    kinds.set(kind, addCells(kinds.get(kind) ?? EMPTY_CELL, cell));
    this.cells.set(modelId, kinds);
    this.totals.set(modelId, addCells(this.totals.get(modelId) ?? EMPTY_CELL, cell));
  }

  /** The model's ratings on this kind of prompt; undefined when there are none. */
  cell(modelId: string, kind: string): FeedbackCell | undefined {
    return this.cells.get(modelId)?.get(kind);
  }

  /** The model's ratings over every kind of prompt; undefined when there are none. */
  modelCell(modelId: string): FeedbackCell | undefined {
    return this.totals.get(modelId);
  }

  /** How many of the model's answers the Space rated. */
  ratings(modelId: string): number {
    return this.totals.get(modelId)?.ratings ?? 0;
  }

  /** `offline` (the offline model's quality for this model and prompt, 0 to 1) corrected by the ratings. */
  quality(modelId: string, kind: string, offline: number): number {
    return adjustedQuality(offline, { model: this.modelCell(modelId), kind: this.cell(modelId, kind) });
  }
}
