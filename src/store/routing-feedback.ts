import type { Tx } from './db';

/** Which cell a rating counts in: one Space, one model, one kind of prompt. */
export interface FeedbackKey {
  appId: string;
  modelId: string;
  kind: string;
}

/** A change of a cell's counts; negative when a rating is taken back. */
export interface FeedbackDelta {
  ratings: number;
  good: number;
  /** Offline quality (0 to 1) of the rated answer, added or taken back. */
  expected: number;
}

export interface FeedbackChange {
  key: FeedbackKey;
  delta: FeedbackDelta;
}

export interface StoredFeedback {
  modelId: string;
  kind: string;
  ratings: number;
  good: number;
  expected: number;
}

/** The `routing_feedback` table: per Space, model and kind, what its users' ratings say. */
export const routingFeedbackStore = {
  /**
   * Adds the delta to the cell, creating it if needed, in one statement so concurrent ratings of
   * the same cell never lose an update. Counts never go below 0: taking back a rating that was given
   * before the cell existed must not leave a negative count behind.
   */
  async apply(tx: Tx, { key, delta }: FeedbackChange): Promise<void> {
    await tx.$executeRaw`
      INSERT INTO "routing_feedback" ("app_id", "model_id", "kind", "ratings", "good", "expected", "updated_on")
      VALUES (${key.appId}::uuid, ${key.modelId}::uuid, ${key.kind},
              GREATEST(0, ${delta.ratings}::int), GREATEST(0, ${delta.good}::int), GREATEST(0, ${delta.expected}::float8), now())
      ON CONFLICT ("app_id", "model_id", "kind") DO UPDATE SET
        "ratings" = GREATEST(0, "routing_feedback"."ratings" + ${delta.ratings}::int),
        "good" = GREATEST(0, "routing_feedback"."good" + ${delta.good}::int),
        "expected" = GREATEST(0, "routing_feedback"."expected" + ${delta.expected}::float8),
        "updated_on" = now()`;
  },

  /** Every cell of the Space. */
  async forSpace(tx: Tx, appId: string): Promise<StoredFeedback[]> {
    const rows = await tx.routingFeedback.findMany({
      where: { app_id: appId },
      select: { model_id: true, kind: true, ratings: true, good: true, expected: true },
    });
    return rows.map((r) => ({ modelId: r.model_id, kind: r.kind, ratings: r.ratings, good: r.good, expected: r.expected }));
  },
};
