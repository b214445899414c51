import path from 'node:path';
import { runBoundCli } from '../../tools/router-lab/evaluation/bounds/bound-cli';
import { informedBound } from '../../tools/router-lab/evaluation/bounds/informed-bound';
import { fitLogistic, solveLinear } from '../../tools/router-lab/evaluation/bounds/logistic-fit';
import { knownCostCurve } from '../../tools/router-lab/evaluation/known-costs';
import type { LabelledPrompt } from '../../tools/router-lab/evaluation/labelled-prompt';
import { buildTestTable, singleModels } from '../../tools/router-lab/evaluation/test-table';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'routing');

describe('the known-cost curve', () => {
  // Two prompts, models a (good, dear) and b (worse, cheap). On p1 a costs 10 USD more than b, on p2 1 cent more.
  const lines: LabelledPrompt[] = [
    { id: 'p1', prompt: 'x', outcomes: { a: 1, b: 0 }, cost: { a: 10.01, b: 0.01 } },
    { id: 'p2', prompt: 'y', outcomes: { a: 1, b: 1 }, cost: { a: 0.02, b: 0.01 } },
  ];
  const table = buildTestTable(lines, ['a', 'b'], null);
  const estimates = [
    [
      { quality: 0.9, cost: 0 },
      { quality: 0.5, cost: 0 },
    ],
    [
      { quality: 0.9, cost: 0 },
      { quality: 0.5, cost: 0 },
    ],
  ];

  it('weighs the true cost in dollars, not the estimate, and gives up quality where it saves most', () => {
    const curve = knownCostCurve(estimates, table, Math.max(...singleModels(table).map((s) => s.cost)));
    // w = 0: a everywhere.
    expect(curve[0]).toEqual({ quality: 1, cost: (10.01 + 0.02) / 2 });
    // Costs are scaled by the dearest single model's mean (a: 5.015). At w = 0.1, p1 scores a 0.81 − 1.996·0.1
    // = 0.61 against b 0.45 − 0.0002: still a; at w = 0.3 a is at 0.63 − 0.599 = 0.031 against b 0.35: b.
    expect(curve[100]).toEqual({ quality: 1, cost: (10.01 + 0.02) / 2 });
    expect(curve[300]).toEqual({ quality: 0.5, cost: (0.01 + 0.02) / 2 });
    // p2's difference of a cent only tips over at w ≈ 0.995 (0.4·(1 − w) = w·0.01/5.015).
    expect(curve[994]).toEqual({ quality: 0.5, cost: (0.01 + 0.02) / 2 });
    expect(curve[996]).toEqual({ quality: 0.5, cost: 0.01 });
    expect(curve).toHaveLength(1001);
  });
});

describe('the logistic fit of the informed bound', () => {
  it('solves small linear systems', () => {
    const x = solveLinear(
      [
        [4, 1, 0],
        [1, 3, 1],
        [0, 1, 2],
      ],
      [6, 9.5, 7],
    );
    [1, 2, 2.5].forEach((v, i) => expect(x[i]).toBeCloseTo(v, 12));
  });

  it('recovers the rates of a binary feature', () => {
    // Feature on: 8 of 10 good; off: 2 of 10 good.
    const rows = [...Array.from({ length: 10 }, () => [1, 1]), ...Array.from({ length: 10 }, () => [1, 0])];
    const labels = [1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0];
    const fit = fitLogistic(rows, labels, 1e-6);
    expect(fit.probability([1, 1])).toBeCloseTo(0.8, 4);
    expect(fit.probability([1, 0])).toBeCloseTo(0.2, 4);
  });
});

describe('the informed bound', () => {
  // Pool a, b; the informant z is right exactly when a is, and b is right otherwise.
  const line = (id: string, z: number, category = 'c'): LabelledPrompt => ({ id, prompt: id, category, outcomes: { a: z, b: 1 - z, z } });
  const train = Array.from({ length: 40 }, (_, i) => line(`t${i}`, i % 2));
  const test = [line('x1', 1), line('x2', 0), line('x3', 0), { id: 'x4', prompt: 'x4', outcomes: { a: 1 } }];

  it("reads the other models' outcomes on the same prompt and picks the model they point to", () => {
    const bound = informedBound(train, test, ['a', 'b']);
    expect(bound).toEqual({ informants: ['z'], lines: 3, quality: 1, bestSingleQuality: 2 / 3 });
  });

  it('needs models outside the pool', () => {
    expect(() => informedBound(train, test, ['a', 'b', 'z'])).toThrow(/outside the pool/);
  });
});

describe('router:bound', () => {
  const run = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runBoundCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
    return { code, out: out.join(''), err: err.join('') };
  };

  it('says in one line when the set has no models outside the pool', async () => {
    const result = await run(['--set', 'routellm_mmlu', '--models', 'gpt-4-1106-preview,mixtral-8x7b-instruct-v0.1', '--folds', '2', '--data', FIXTURES]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^error: .*outside the pool/);
    expect(result.out).toBe('');
  });

  it('names the models the set has no outcomes for', async () => {
    const result = await run(['--set', 'routellm_mmlu', '--models', 'gpt-4-1106-preview,nope', '--folds', '2', '--data', FIXTURES]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^error: No outcomes for nope in this set/);
  });

  it('rejects a set it does not know', async () => {
    const result = await run(['--set', 'nope', '--models', 'a,b']);
    expect(result.code).toBe(2);
  });
});
