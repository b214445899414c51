import { z } from 'zod';
import { readStoredLog } from '../../schemas/stored-log';
import type { FeedbackChange, FeedbackDelta } from '../../store/routing-feedback';

/** A log as it was before its rating changed: what the lesson needs of it. */
export interface RatedLog {
  parent_id: string | null;
  app_id: string | null;
  model_id: string | null;
  good_answer: boolean | null;
  /** The stored response (any version `readStoredLog` reads), whose routing scores explain the decision. */
  response: unknown;
  /** The catalog row of `model_id`, to find its candidate among the scores. */
  model: { model: string; provider: string } | null;
}

/** The parts of the routing scores the online learner reads; anything else may be there too. */
const routingScores = z.object({
  candidates: z.array(z.object({ model: z.string(), provider: z.string(), offline_quality: z.number().min(0).max(1).optional() })),
  router: z.object({ kind: z.string().min(1), smart_learn: z.boolean() }),
});
function scoresOf(response: unknown): z.infer<typeof routingScores> | null {
  const report = readStoredLog(response)?.report;
  return report ? (routingScores.safeParse(report.scores).data ?? null) : null;
}

/** 1 for a rating that counts among `ratings`, and among `good`. */
const rated = (rating: boolean | null) => (rating === null ? 0 : 1);
const good = (rating: boolean | null) => (rating === true ? 1 : 0);

/** How the counts move when a rating goes from `before` to `after` (null = not rated); null when they do not. */
export function ratingDelta(before: boolean | null, after: boolean | null, offlineQuality: number): FeedbackDelta | null {
  if (before === after) return null;
  const ratings = rated(after) - rated(before);
  return { ratings, good: good(after) - good(before), expected: ratings * offlineQuality };
}

/**
 * What a change of rating teaches the Space's online model, or null when it teaches nothing: only a
 * top-level log of a Space, answered by a catalog model, routed with `smart_learn` on, whose
 * decision recorded the offline quality of the model that answered. A privacy-masked or older log
 * without that metadata is left out.
 */
export function learnFromRating(log: RatedLog, after: boolean | null): FeedbackChange | null {
  if (log.parent_id !== null || log.app_id === null || log.model_id === null || log.model === null) return null;
  const scores = scoresOf(log.response);
  if (!scores?.router.smart_learn) return null;
  const { candidates, router } = scores;
  const { model, provider } = log.model;
  const offlineQuality = candidates.find((c) => c.model === model && c.provider === provider)?.offline_quality;
  if (offlineQuality === undefined) return null;
  const delta = ratingDelta(log.good_answer, after, offlineQuality);
  return delta && { key: { appId: log.app_id, modelId: log.model_id, kind: router.kind }, delta };
}
