import type { EvalRouter } from '../../tools/router-lab/evaluation/eval-router';
import type { LabelledPrompt } from '../../tools/router-lab/evaluation/labelled-prompt';
import { replayEvaluation } from '../../tools/router-lab/evaluation/replay';
import { adjustedQuality } from '../../src/routing/online/adjusted-quality';
import { chooseWithExploration, explorationPick, shouldExplore } from '../../src/routing/online/exploration';
import { MIN_RATINGS, type FeedbackCell } from '../../src/routing/online/feedback-cell';
import { learnFromRating, ratingDelta, type RatedLog } from '../../src/routing/online/rating-lesson';
import { SpaceFeedback } from '../../src/routing/online/space-feedback';

const logit = (p: number) => Math.log(p / (1 - p));
/** `n` ratings of which a share `goodRate` good, where the offline model expected `expectedRate`. */
const cell = (n: number, goodRate: number, expectedRate: number): FeedbackCell => ({ ratings: n, good: Math.round(n * goodRate), expected: n * expectedRate });

describe('adjustedQuality', () => {
  it('leaves the offline quality as it is without ratings', () => {
    expect(adjustedQuality(0.63, {})).toBe(0.63);
    expect(adjustedQuality(0.63, { model: cell(0, 0, 0), kind: cell(0, 0, 0) })).toBe(0.63);
  });

  it('stays put when users rate the model as the offline model expected', () => {
    expect(adjustedQuality(0.7, { model: cell(50, 0.6, 0.6) })).toBeCloseTo(0.7, 10);
  });

  it('moves towards what the ratings say as they accumulate, and stays within 0 and 1', () => {
    const worse = [1, 5, 20, 100, 1000].map((n) => adjustedQuality(0.8, { model: cell(n, 0.2, 0.8) }));
    const better = [1, 5, 20, 100, 1000].map((n) => adjustedQuality(0.3, { model: cell(n, 0.9, 0.3) }));
    worse.reduce((previous, q) => (expect(q).toBeLessThan(previous), q), 0.8);
    better.reduce((previous, q) => (expect(q).toBeGreaterThan(previous), q), 0.3);
    expect(worse[4]).toBeGreaterThan(0);
    expect(worse[4]).toBeLessThan(0.3);
    expect(better[4]).toBeLessThan(1);
    expect(better[4]).toBeGreaterThan(0.85);
  });

  it('gives the ratings less weight than the offline model until MIN_RATINGS, and as much at it', () => {
    // With every rating bad at an expected 0.8, the full shift is logit(½/(n+1)) − logit((0.8n+½)/(n+1)).
    const share = (n: number) => {
      const full = logit(0.5 / (n + 1)) - logit((0.8 * n + 0.5) / (n + 1));
      return (logit(adjustedQuality(0.8, { model: cell(n, 0, 0.8) })) - logit(0.8)) / full;
    };
    expect(share(MIN_RATINGS - 1)).toBeLessThan(0.5);
    expect(share(MIN_RATINGS)).toBeCloseTo(0.5, 10);
    expect(share(5 * MIN_RATINGS)).toBeGreaterThan(0.8);
  });

  it("refines the model's shift with the kind's own ratings", () => {
    const model = cell(200, 0.4, 0.8);
    const modelOnly = adjustedQuality(0.8, { model });
    expect(adjustedQuality(0.8, { model, kind: cell(0, 0, 0) })).toBe(modelOnly);
    // This kind is rated as expected: many such ratings pull it back towards the offline figure.
    const fewKind = adjustedQuality(0.8, { model, kind: cell(5, 0.8, 0.8) });
    const manyKind = adjustedQuality(0.8, { model, kind: cell(500, 0.8, 0.8) });
    expect(fewKind).toBeGreaterThan(modelOnly);
    expect(manyKind).toBeGreaterThan(fewKind);
    expect(manyKind).toBeCloseTo(0.8, 1);
  });
});

describe('exploration', () => {
  const ids = Array.from({ length: 20_000 }, (_, i) => `req-${i}`);

  it('decides from the request id alone, for about `rate` of the requests', () => {
    expect(ids.map((id) => shouldExplore(id))).toEqual(ids.map((id) => shouldExplore(id)));
    const share = ids.filter((id) => shouldExplore(id)).length / ids.length;
    expect(share).toBeGreaterThan(0.015);
    expect(share).toBeLessThan(0.025);
    expect(ids.some((id) => shouldExplore(id, 0))).toBe(false);
    expect(ids.every((id) => shouldExplore(id, 1))).toBe(true);
  });

  const ranked = [
    { modelId: 'best', score: 0.8, ratings: 0 },
    { modelId: 'rated', score: 0.79, ratings: MIN_RATINGS },
    { modelId: 'near', score: 0.77, ratings: MIN_RATINGS - 1 },
    { modelId: 'nearer-but-later', score: 0.77, ratings: 0 },
    { modelId: 'far', score: 0.72, ratings: 0 },
  ];

  it('picks the highest-ranked little-rated candidate within the margin, never the best one', () => {
    expect(explorationPick(ranked)?.modelId).toBe('near');
    expect(explorationPick(ranked, 0.01)).toBeNull();
    expect(explorationPick(ranked, 0.2)?.modelId).toBe('near');
    expect(explorationPick([ranked[0], ranked[4]], 0.1)?.modelId).toBe('far');
    expect(explorationPick([ranked[0]])).toBeNull();
    expect(explorationPick([])).toBeNull();
  });

  it('answers with the best candidate unless the request explores and one qualifies', () => {
    const exploring = ids.find((id) => shouldExplore(id)) ?? '';
    const staying = ids.find((id) => !shouldExplore(id)) ?? '';
    expect(chooseWithExploration(exploring, ranked)).toEqual({ chosen: ranked[2], explored: true });
    expect(chooseWithExploration(staying, ranked)).toEqual({ chosen: ranked[0], explored: false });
    expect(chooseWithExploration(exploring, [ranked[0], ranked[1]])).toEqual({ chosen: ranked[0], explored: false });
    expect(chooseWithExploration(exploring, [])).toEqual({ chosen: null, explored: false });
  });
});

describe('learning from a rating', () => {
  const scores = (router: object, candidates: object[] = [{ model: 'gpt-x', provider: 'openai', offline_quality: 0.7 }]) => ({
    id: 'chatcmpl-1',
    metadata: { scores: { best_models: ['gpt-x'], candidates, router: { version: 'v1', kind: 'math', smart_learn: true, explored: false, ...router } } },
  });
  const log = (overrides: Partial<RatedLog> = {}): RatedLog => ({
    parent_id: null,
    app_id: 'app-1',
    model_id: 'model-1',
    good_answer: null,
    response: scores({}),
    model: { model: 'gpt-x', provider: 'openai' },
    ...overrides,
  });

  it.each([
    [null, true, { ratings: 1, good: 1, expected: 0.7 }],
    [null, false, { ratings: 1, good: 0, expected: 0.7 }],
    [true, null, { ratings: -1, good: -1, expected: -0.7 }],
    [false, null, { ratings: -1, good: 0, expected: -0.7 }],
    [true, false, { ratings: 0, good: -1, expected: 0 }],
    [false, true, { ratings: 0, good: 1, expected: 0 }],
    [true, true, null],
    [null, null, null],
  ])('moves the counts from %s to %s', (before, after, delta) => {
    expect(ratingDelta(before, after, 0.7)).toEqual(delta);
  });

  it("counts in the Space's cell of the model that answered and the kind of prompt", () => {
    expect(learnFromRating(log(), true)).toEqual({ key: { appId: 'app-1', modelId: 'model-1', kind: 'math' }, delta: { ratings: 1, good: 1, expected: 0.7 } });
  });

  it.each([
    ['a sub-request', { parent_id: 'parent' }],
    ['a log without a Space', { app_id: null }],
    ['a log without a model', { model_id: null, model: null }],
    ['smart_learn off', { response: scores({ smart_learn: false }) }],
    ['no routing metadata (masked or older)', { response: { id: 'chatcmpl-1' } }],
    ['no offline quality for the model', { response: scores({}, [{ model: 'gpt-x', provider: 'openai' }]) }],
    ['no candidate for the model', { response: scores({}, [{ model: 'gpt-x', provider: 'azure', offline_quality: 0.7 }]) }],
    ['the same rating again', { good_answer: true }],
  ])('learns nothing from %s', (_, overrides) => {
    expect(learnFromRating(log(overrides as Partial<RatedLog>), true)).toBeNull();
  });
});

describe('SpaceFeedback', () => {
  const feedback = new SpaceFeedback([
    { modelId: 'a', kind: 'math', ratings: 10, good: 2, expected: 7 },
    { modelId: 'a', kind: 'code', ratings: 30, good: 27, expected: 24 },
    { modelId: 'b', kind: 'math', ratings: 1, good: 1, expected: 0.5 },
  ]);

  it('answers each cell, each model over its kinds, and its rating count', () => {
    expect(feedback.cell('a', 'math')).toEqual({ ratings: 10, good: 2, expected: 7 });
    expect(feedback.cell('a', 'prose')).toBeUndefined();
    expect(feedback.modelCell('a')).toEqual({ ratings: 40, good: 29, expected: 31 });
    expect(feedback.modelCell('c')).toBeUndefined();
    expect([feedback.ratings('a'), feedback.ratings('b'), feedback.ratings('c')]).toEqual([40, 1, 0]);
    expect(feedback.quality('a', 'math', 0.7)).toBe(adjustedQuality(0.7, { model: feedback.modelCell('a'), kind: feedback.cell('a', 'math') }));
    expect(feedback.quality('c', 'math', 0.7)).toBe(0.7);
    expect(SpaceFeedback.EMPTY.ratings('a')).toBe(0);
  });
});

describe('replayEvaluation', () => {
  const POOL = ['big', 'small'];
  /** The offline model overrates `big` on math: it says 0.8 where `big` is right 3 times in 10. */
  const truth = (model: string, kind: string, i: number): number => {
    if (model === 'big') return kind === 'math' ? Number(i % 10 < 3) : Number(i % 10 < 9);
    return kind === 'math' ? Number(i % 10 < 7) : Number(i % 10 < 5);
  };
  const lines: LabelledPrompt[] = Array.from({ length: 600 }, (_, i) => {
    const kind = i % 2 === 0 ? 'math' : 'text';
    const n = Math.floor(i / 2);
    return {
      id: `line-${i}`,
      prompt: `prompt ${i}`,
      category: kind,
      outcomes: { big: truth('big', kind, n), small: truth('small', kind, n) },
      cost: { big: 0.01, small: 0.001 },
    };
  });
  const router: EvalRouter = {
    estimate: (_, models) => models.map((m) => (m === 'big' ? { quality: 0.8, cost: 0.01 } : { quality: 0.6, cost: 0.001 })),
    kindOf: (line) => line.category ?? 'other',
  };
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

  it('recovers from an offline model that overrates one model on one kind of prompt', () => {
    const report = replayEvaluation({ router, test: lines, pool: POOL, prices: null, seed: 3, costWeights: [0] });
    const [point] = report.points;
    // Offline: always `big`, 0.3 on math and 0.9 on text.
    expect(point.offline.quality).toBeCloseTo(mean([0.3, 0.9]), 5);
    expect(point.offline.cost).toBeCloseTo(0.01, 10);
    // Online: `small` takes over math (0.7) once `big`'s bad ratings outweigh the offline model.
    expect(point.online.quality).toBeGreaterThan(point.offline.quality + 0.08);
    expect(point.online.cost).toBeLessThan(point.offline.cost);
    const last = point.stream[point.stream.length - 1];
    expect(last.online_quality).toBeGreaterThan(0.75);
    expect(point.stream[0].online_quality).toBeLessThan(last.online_quality);
    expect(point.stream.map((p) => [p.from, p.to])).toEqual([
      [0, 120],
      [120, 240],
      [240, 360],
      [360, 480],
      [480, 600],
    ]);
    expect(point.explored_share).toBeLessThan(0.05);
  });

  it('is deterministic for the same seed, and the seed orders the stream', () => {
    const options = { router, test: lines, pool: POOL, prices: null, seed: 11 };
    const report = replayEvaluation(options);
    expect(replayEvaluation(options)).toEqual(report);
    expect(report.points.map((p) => p.cost_weight)).toEqual([0, 0.5]);
    expect(replayEvaluation({ ...options, seed: 12 }).points[0].stream).not.toEqual(report.points[0].stream);
  });

  it('matches the offline router exactly when users rate as it predicts and nothing explores', () => {
    const calibrated: EvalRouter = { ...router, estimate: (line, models) => models.map((m) => ({ quality: line.outcomes[m], cost: line.cost?.[m] ?? 0 })) };
    const report = replayEvaluation({ router: calibrated, test: lines, pool: POOL, prices: null, seed: 5, exploration: { rate: 0 } });
    for (const point of report.points) expect(point.online).toEqual(point.offline);
  });

  it('names a pool model a line has no outcome for', () => {
    const broken = [...lines.slice(0, 3), { ...lines[3], outcomes: { big: 1 } }];
    expect(() => replayEvaluation({ router, test: broken, pool: POOL, prices: null, seed: 1 })).toThrow("Line 'line-3' has no outcome for 'small'");
  });
});
