import { sigmoid } from '../../../../src/routing/learned/linear-models';

/** Solves `a·x = b` for a small dense symmetric positive-definite `a` (Gaussian elimination, partial pivoting). */
export function solveLinear(a: readonly number[][], b: readonly number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r][col]) > Math.abs(m[pivot][col])) pivot = r;
    [m[col], m[pivot]] = [m[pivot], m[col]];
    if (m[col][col] === 0) throw new Error('The system is singular.');
    for (let r = col + 1; r < n; r++) {
      const factor = m[r][col] / m[col][col];
      for (let c = col; c <= n; c++) m[r][c] -= factor * m[col][c];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let sum = m[r][n];
    for (let c = r + 1; c < n; c++) sum -= m[r][c] * x[c];
    x[r] = sum / m[r][r];
  }
  return x;
}

export interface LogisticFit {
  weights: number[];
  /** P(y = 1 | x). */
  probability(x: readonly number[]): number;
}

const MAX_STEPS = 50;
const CONVERGED = 1e-9;

/**
 * L2-regularised logistic regression fitted exactly by Newton's method (IRLS): deterministic, no learning
 * rate to tune, fine for the few dozen dense features it is used with. `rows` should carry their own
 * intercept column; every weight, intercept included, is penalised by `ridge`·w²/2.
 */
export function fitLogistic(rows: readonly number[][], labels: readonly number[], ridge: number): LogisticFit {
  const d = rows[0]?.length ?? 0;
  let weights = new Array<number>(d).fill(0);
  const dot = (x: readonly number[]) => x.reduce((sum, v, j) => sum + v * weights[j], 0);
  for (let step = 0; step < MAX_STEPS; step++) {
    const gradient = weights.map((w) => ridge * w);
    const hessian = Array.from({ length: d }, (_, i) => Array.from({ length: d }, (_, j) => (i === j ? ridge : 0)));
    rows.forEach((x, n) => {
      const p = sigmoid(dot(x));
      const curvature = p * (1 - p);
      for (let i = 0; i < d; i++) {
        if (x[i] === 0) continue;
        gradient[i] += (p - labels[n]) * x[i];
        for (let j = 0; j < d; j++) hessian[i][j] += curvature * x[i] * x[j];
      }
    });
    const delta = solveLinear(hessian, gradient);
    weights = weights.map((w, j) => w - delta[j]);
    if (Math.max(...delta.map(Math.abs)) < CONVERGED) break;
  }
  return { weights, probability: (x) => sigmoid(dot(x)) };
}
