import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BASELINES } from '../../tools/router-lab/evaluation/baselines';
import { crossValidate } from '../../tools/router-lab/evaluation/cross-validation';
import { cvMarkdown } from '../../tools/router-lab/evaluation/cv-table';
import { runEvalCli } from '../../tools/router-lab/evaluation/eval-cli';
import { evaluateRouters, type Contender } from '../../tools/router-lab/evaluation/evaluate';
import type { LabelledPrompt, PriceTable } from '../../tools/router-lab/evaluation/labelled-prompt';
import { aiq, costSave, nonDecreasingHull } from '../../tools/router-lab/evaluation/metrics';
import { trainOracleRouter } from '../../tools/router-lab/evaluation/oracle-router';
import { chooseModel, COST_WEIGHTS, sweepRouter } from '../../tools/router-lab/evaluation/sweep';
import { buildTestTable, evaluationPool } from '../../tools/router-lab/evaluation/test-table';
import { twoModelMetrics, type PairedPrompt } from '../../tools/router-lab/evaluation/two-model-metrics';

const point = (cost: number, quality: number) => ({ cost, quality });

describe('cost-quality metrics', () => {
  it('CostSave is taken at the cheapest point that reaches the best single model', () => {
    const points = [point(1, 0.5), point(3, 0.9), point(2, 0.8)];
    expect(costSave(points, point(4, 0.8))).toBeCloseTo(1 - 2 / 4, 12);
    expect(costSave(points, point(4, 0.95))).toBeNull();
  });

  it('the hull is upper, convex and cut at its highest point', () => {
    const hull = nonDecreasingHull([point(2, 0.6), point(1, 0.5), point(4, 0.85), point(3, 0.9), point(2.5, 0.55), point(3, 0.7)]);
    // (2, 0.6) lies under the chord from (1, 0.5) to (3, 0.9), which reads 0.7 there; (4, 0.85) comes after the top.
    expect(hull).toEqual([point(1, 0.5), point(3, 0.9)]);
  });

  it('AIQ integrates the hull from the cheapest to the dearest single model, flat beyond the router', () => {
    // Hull (1, 0.5) → (2, 0.7) → (4, 0.8), then flat to 5: 0.6 + 1.5 + 0.8 = 2.9 over a width of 4.
    expect(aiq([point(2, 0.7), point(4, 0.8), point(3, 0.7)], { cheapest: point(1, 0.5), maxCost: 5 })).toBeCloseTo(2.9 / 4, 12);
    // A router below the always-cheapest point gets the always-cheapest quality.
    expect(aiq([point(3, 0.4)], { cheapest: point(1, 0.5), maxCost: 5 })).toBeCloseTo(0.5, 12);
    // A point cheaper than the cheapest model is interpolated at c_min: (0, 0.6)–(2, 0.8) reads 0.7 at 1.
    expect(aiq([point(0, 0.6), point(2, 0.8)], { cheapest: point(1, 0.5), maxCost: 3 })).toBeCloseTo(((0.7 + 0.8) / 2 + 0.8) / 2, 12);
  });
});

describe('two-model metrics', () => {
  // q_strong = 3/4, q_weak = 1/4.
  const prompts = (preferences: number[]): PairedPrompt[] =>
    [
      [1, 0],
      [1, 1],
      [0, 0],
      [1, 0],
    ].map(([strongOutcome, weakOutcome], i) => ({ id: `p${i + 1}`, preference: preferences[i], strongOutcome, weakOutcome }));

  it('APGR is the trapezoidal area under PGR(k/N) and CPT(50%) its first crossing of 0.5', () => {
    const metrics = twoModelMetrics(prompts([0.9, 0.5, 0.1, -0.2]));
    expect(metrics?.pgr).toEqual([0, 0.5, 0.5, 0.5, 1]);
    expect(metrics?.apgr).toBeCloseTo((0.25 + 0.5 + 0.5 + 0.75) / 4, 12);
    expect(metrics?.cpt50).toBe(0.25);
  });

  it('the oracle order (strong-only-right first) bounds it', () => {
    const metrics = twoModelMetrics(prompts([1, 0, 0, 1]));
    expect(metrics?.pgr).toEqual([0, 0.5, 1, 1, 1]);
    expect(metrics?.apgr).toBeCloseTo(0.75, 12);
  });

  it('ties go by id, and equal models leave PGR undefined', () => {
    expect(twoModelMetrics(prompts([0, 0, 0, 0]))?.pgr).toEqual([0, 0.5, 0.5, 0.5, 1]);
    expect(twoModelMetrics([{ id: 'a', preference: 0, strongOutcome: 1, weakOutcome: 1 }])).toBeNull();
  });
});

const PRICES: PriceTable = { big: [10, 30], small: [0.5, 1.5], mid: [2, 6] };
const TOPICS = ['integral derivative equation', 'contract tort statute', 'function loop compile'];

/**
 * A deterministic set: `big` is right on most prompts, `small` on the legal ones and a few others,
 * `mid` on the code ones; `n` prompts over three categories.
 */
function syntheticSet(n: number, offset = 0): LabelledPrompt[] {
  return Array.from({ length: n }, (_, k) => {
    const i = k + offset;
    const c = i % 3;
    const hard = (i * 7919) % 10 < 3;
    return {
      id: `q${String(i).padStart(4, '0')}`,
      prompt: `${TOPICS[c]} question ${i % 17} ${hard ? 'tricky multi step' : 'simple'}`,
      category: ['math', 'law', 'code'][c],
      outcomes: { big: hard && c === 0 ? 0 : 1, small: c === 1 && !hard ? 1 : (i * 31) % 7 === 0 ? 1 : 0, mid: c === 2 ? 1 : hard ? 0 : i % 2 },
      completion_tokens: { big: 300, small: 200 + (i % 5) * 20, mid: 250 },
    };
  });
}

describe('evaluation', () => {
  const train = syntheticSet(300);
  const test = syntheticSet(90, 1000);
  const pool = evaluationPool(test);

  it('the pool is the intersection of the models every test line has', () => {
    const lines = [{ ...test[0], outcomes: { big: 1, small: 0 } }, test[1]];
    expect(evaluationPool(lines)).toEqual(['big', 'small']);
    expect(pool).toEqual(['big', 'mid', 'small']);
  });

  it('the oracle picks a right answer at w = 0, the cheapest among ties', () => {
    const lines: LabelledPrompt[] = [
      { id: 'a', prompt: 'x', outcomes: { big: 1, small: 1 }, cost: { big: 2, small: 1 } },
      { id: 'b', prompt: 'y', outcomes: { big: 1, small: 0 }, cost: { big: 2, small: 1 } },
    ];
    const table = buildTestTable(lines, ['big', 'small'], null);
    const sweep = sweepRouter(trainOracleRouter({ prompts: [], prices: null, seed: 0 }), table);
    expect(sweep.choices[0]).toEqual([1, 0]);
    expect(sweep.points[0]).toEqual({ costWeight: 0, quality: 1, cost: 1.5 });
    expect(sweep.choices[100]).toEqual([1, 1]);
  });

  it('the decision breaks score ties by estimated cost, then by name', () => {
    expect(
      chooseModel(
        [
          { quality: 0.5, cost: 2, latency: 0 },
          { quality: 0.5, cost: 1, latency: 0 },
        ],
        ['a', 'b'],
        0,
      ),
    ).toBe(1);
    expect(
      chooseModel(
        [
          { quality: 0.5, cost: 1, latency: 0 },
          { quality: 0.5, cost: 1, latency: 0 },
        ],
        ['b', 'a'],
        0,
      ),
    ).toBe(1);
  });

  it('is deterministic for a seed, and every baseline stays between random and the oracle', () => {
    const run = (seed: number) => evaluateRouters({ train, test, pool, prices: PRICES, seed, contenders: BASELINES }).report;
    const first = run(7);
    expect(run(7)).toEqual(first);
    expect(Object.keys(first.routers)).toEqual(['random', 'always-best-single', 'always-cheapest', 'best-model-per-category', 'knn', 'oracle']);
    expect(first.best_single.model).toBe('big');
    expect(first.routers['always-best-single']).toMatchObject({ quality: first.best_single.quality, cost: first.best_single.cost, cost_save: 0 });
    expect(first.routers['always-cheapest'].quality).toBe(first.cheapest_single.quality);
    const oracle = first.routers.oracle;
    for (const r of Object.values(first.routers)) expect(r.quality).toBeLessThanOrEqual(oracle.quality);
    expect(first.routers['best-model-per-category'].quality).toBeGreaterThan(first.routers.random.quality);
    // Random and the fixed routers are single points.
    expect(new Set(first.routers.random.curve.map((p) => p.quality)).size).toBe(1);
    expect(first.routers.random.curve).toHaveLength(COST_WEIGHTS.length);
  });

  it('random has an expected APGR of 0.5 on a two-model pool', () => {
    const big = syntheticSet(3000).map((line) => ({ ...line, outcomes: { big: line.outcomes.big, small: line.outcomes.small } }));
    const contenders: Contender[] = BASELINES.filter((b) => b.name === 'random' || b.name === 'oracle');
    const { report } = evaluateRouters({ train: big.slice(0, 10), test: big, pool: ['big', 'small'], prices: PRICES, seed: 3, contenders });
    expect(report.routers.random.apgr).toBeGreaterThan(0.45);
    expect(report.routers.random.apgr).toBeLessThan(0.55);
    expect(report.routers.oracle.apgr).toBeGreaterThan(0.7);
  });

  it('cross-validates and tabulates mean ± sd per router', () => {
    const results = crossValidate({ lines: train, folds: 3, seed: 1, models: ['big', 'small'], prices: PRICES, contenders: BASELINES.slice(0, 2) });
    expect(results.map((r) => r.report.prompts.test)).toEqual([100, 100, 100]);
    const table = cvMarkdown(results, 'toy');
    expect(table).toContain('| Router | Quality (w = 0) | Cost, USD per 1k prompts (w = 0) | CostSave | AIQ | CostSave, told true costs | APGR | CPT(50%) |');
    expect(table).toMatch(/\| random \| 0\.\d{4} ± 0\.\d{4} \|/);
  });
});

describe('router:eval', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'router-eval-'));
  const file = (name: string, lines: readonly unknown[]) => {
    const at = path.join(dir, name);
    writeFileSync(at, lines.map((line) => `${typeof line === 'string' ? line : JSON.stringify(line)}\n`).join(''));
    return at;
  };
  const trainFile = file('train.jsonl', syntheticSet(120));
  const testFile = file('test.jsonl', syntheticSet(30, 500));
  const pricesFile = path.join(dir, 'prices.json');
  writeFileSync(pricesFile, JSON.stringify({ _note: 'USD per 1M tokens', toy: PRICES }));

  const run = async (argv: string[]) => {
    const io = { stdout: '', stderr: '' };
    const code = await runEvalCli(argv, { out: (t) => (io.stdout += t), err: (t) => (io.stderr += t) });
    return { code, ...io };
  };

  it('prints one JSON object, and its decisions recompute the reported qualities', async () => {
    const decisions = path.join(dir, 'decisions.jsonl');
    const result = await run(['--train', trainFile, '--test', testFile, '--prices', pricesFile, '--price-set', 'toy', '--decisions', decisions]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(Object.keys(report.routers)).toEqual(['switchyard', 'random', 'always-best-single', 'always-cheapest', 'best-model-per-category', 'knn', 'oracle']);
    expect(report.pool).toEqual(['big', 'mid', 'small']);
    expect(report.replay).toMatchObject({ prompts: 30, points: [{ cost_weight: 0 }, { cost_weight: 0.5 }] });
    const labels = new Map(syntheticSet(30, 500).map((line) => [line.id, line.outcomes]));
    const lines = readFileSync(decisions, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; cost_weight: number; model: keyof typeof PRICES });
    expect(lines).toHaveLength(30 * COST_WEIGHTS.length);
    expect(Object.keys(lines[0])).toEqual(['id', 'cost_weight', 'model']);
    for (const p of report.routers.switchyard.curve as { cost_weight: number; quality: number }[]) {
      const at = lines.filter((l) => l.cost_weight === p.cost_weight);
      expect(at).toHaveLength(30);
      expect(at.reduce((sum, l) => sum + (labels.get(l.id)?.[l.model] ?? NaN), 0) / 30).toBeCloseTo(p.quality, 12);
    }
  });

  it.each([
    [['--train', path.join(dir, 'missing.jsonl'), '--test', 'x'], /missing\.jsonl: no such file/],
    [['--train', trainFile, '--test', 'BAD'], /bad\.jsonl: line 2: field 'outcomes\.big'/],
    [['--train', trainFile, '--test', testFile], /No price for model 'big'/],
    [['--train', trainFile, '--test', testFile, '--prices', pricesFile], /holds several price sets \(toy\); choose one with --price-set/],
    [['--train', trainFile], /required option '--test <file>'/],
  ])('rejects bad input %j with exit code 2 and one message', async (argv, message) => {
    const badFile = file('bad.jsonl', [syntheticSet(1)[0], '{"id":"x","prompt":"p","outcomes":{"big":2}}']);
    const result = await run(argv.map((a) => (a === 'BAD' ? badFile : a)));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).toBe('');
  });
});
