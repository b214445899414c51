/** Probabilities closer to 0 or 1 than this are clamped before `logit`, so logits stay finite. */
const LOGIT_EPSILON = 1e-4;

export const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** The inverse of `sigmoid`, with `p` clamped to [1e-4, 1 − 1e-4]. */
export const logit = (p: number): number => {
  const q = Math.min(Math.max(p, LOGIT_EPSILON), 1 - LOGIT_EPSILON);
  return Math.log(q / (1 - q));
};
