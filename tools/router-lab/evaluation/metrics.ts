import type { CostQuality, SingleModel } from './test-table';

/**
 * Quality comparisons allow this much: means of the same outcomes summed in another order may differ in
 * the last bits, and a router that picks the best single model everywhere must count as matching it.
 */
const QUALITY_TOLERANCE = 1e-9;

/** The pool model with the highest mean test outcome; ties go to the cheaper, then to the name. */
export function bestSingle(singles: readonly SingleModel[]): SingleModel {
  return [...singles].sort((a, b) => b.quality - a.quality || a.cost - b.cost || a.model.localeCompare(b.model))[0];
}

/** The pool model with the lowest mean test cost; ties go to the better, then to the name. */
export function cheapestSingle(singles: readonly SingleModel[]): SingleModel {
  return [...singles].sort((a, b) => a.cost - b.cost || b.quality - a.quality || a.model.localeCompare(b.model))[0];
}

/**
 * CostSave: 1 − cost / cost of the best single model, at the cheapest sweep point whose quality reaches
 * the best single model's; null when no point reaches it.
 */
export function costSave(points: readonly CostQuality[], best: CostQuality): number | null {
  const reaching = points.filter((p) => p.quality >= best.quality - QUALITY_TOLERANCE);
  if (reaching.length === 0) return null;
  const cheapest = Math.min(...reaching.map((p) => p.cost));
  return best.cost > 0 ? 1 - cheapest / best.cost : 0;
}

function cross(o: CostQuality, a: CostQuality, b: CostQuality): number {
  return (a.cost - o.cost) * (b.quality - o.quality) - (a.quality - o.quality) * (b.cost - o.cost);
}

/**
 * The non-decreasing upper convex hull of (cost, quality) points, cheapest first: the upper hull
 * (monotone chain) cut at its highest point, after which the curve stays flat.
 */
export function nonDecreasingHull(points: readonly CostQuality[]): CostQuality[] {
  const sorted = [...points].sort((a, b) => a.cost - b.cost || b.quality - a.quality);
  const hull: CostQuality[] = [];
  for (const p of sorted) {
    if (hull.length > 0 && hull[hull.length - 1].cost === p.cost) continue;
    while (hull.length >= 2 && cross(hull[hull.length - 2], hull[hull.length - 1], p) >= 0) hull.pop();
    hull.push(p);
  }
  let top = 0;
  hull.forEach((p, i) => {
    if (p.quality > hull[top].quality) top = i;
  });
  return hull.slice(0, top + 1);
}

/** The hull's quality at `cost`: linear between vertices, flat beyond the ends. */
function hullAt(hull: readonly CostQuality[], cost: number): number {
  if (cost <= hull[0].cost) return hull[0].quality;
  for (let i = 1; i < hull.length; i++) {
    const [a, b] = [hull[i - 1], hull[i]];
    if (cost <= b.cost) return a.quality + ((b.quality - a.quality) * (cost - a.cost)) / (b.cost - a.cost);
  }
  return hull[hull.length - 1].quality;
}

export interface AiqRange {
  /** The cheapest single model on the test set: its point joins the router's before the hull is built. */
  cheapest: CostQuality;
  /** Mean USD per prompt of the dearest single model on the test set. */
  maxCost: number;
}

/**
 * AIQ, the average improvement in quality of RouterBench (Hu et al. 2024): the router's (cost, quality)
 * points over the cost-weight sweep, plus the always-cheapest point (the cheapest single model's mean
 * cost and quality), are reduced to their non-decreasing upper convex hull; the hull's quality is
 * integrated over cost from c_min to c_max by trapezoids (exact for a piecewise-linear curve) and divided
 * by (c_max − c_min), c_min and c_max being the cheapest and the dearest single model's mean cost on the
 * test set. Beyond the router's dearest hull point the curve is flat. When c_max = c_min the answer is the
 * hull's quality at c_min.
 */
export function aiq(points: readonly CostQuality[], range: AiqRange): number {
  const hull = nonDecreasingHull([...points, range.cheapest]);
  const [from, to] = [range.cheapest.cost, range.maxCost];
  if (to <= from) return hullAt(hull, from);
  const cuts = [from, ...hull.map((p) => p.cost).filter((c) => c > from && c < to), to];
  let area = 0;
  for (let i = 1; i < cuts.length; i++) area += ((hullAt(hull, cuts[i - 1]) + hullAt(hull, cuts[i])) / 2) * (cuts[i] - cuts[i - 1]);
  return area / (to - from);
}
