import { planModels, type PlanInputs } from '../../src/pipeline/model-plan';
import type { SpaceContext } from '../../src/store/space-context';
import { spaceContext } from '../helpers/space-context';
import type { ProviderBinding, ProviderRegistry } from '../../src/providers/registry';
import { shouldExplore } from '../../src/routing/online/exploration';
import { MIN_RATINGS } from '../../src/routing/online/feedback-cell';
import { SpaceFeedback } from '../../src/routing/online/space-feedback';
import { profileRequest } from '../../src/routing/request-profile';
import { learnedQuality } from '../../src/routing/scorer';
import type { Weights } from '../../src/schemas/apps';
import { preparedCompletion } from '../helpers/prepared-completion';
import { routable } from '../helpers/routable-model';
import { shippedRouter } from '../helpers/shipped-router';

const router = shippedRouter();
const registry: ProviderRegistry = { resolve: () => ({}) as ProviderBinding };

/** Three catalog-like models: a strong dear one, a mid one good at code, a cheap weak one. */
const strong = routable({
  id: 'strong',
  model: 'strong',
  promptTokenCost: 5e-6,
  completionTokenCost: 2e-5,
  quality: { overall: 0.88, categories: { code: 0.86, math: 0.93, chat: 0.9 } },
});
const coder = routable({
  id: 'coder',
  model: 'coder',
  promptTokenCost: 5e-7,
  completionTokenCost: 2e-6,
  quality: { overall: 0.7, categories: { code: 0.9, math: 0.6, chat: 0.7 } },
});
const cheap = routable({
  id: 'cheap',
  model: 'cheap',
  promptTokenCost: 5e-8,
  completionTokenCost: 2e-7,
  quality: { overall: 0.5, categories: { code: 0.4, math: 0.45, chat: 0.75 } },
});

function space(models = [strong, coder, cheap]): SpaceContext {
  return spaceContext({ models });
}

interface Ask {
  text: string;
  weights?: Weights;
  models?: ReturnType<typeof routable>[];
  feedback?: SpaceFeedback;
  requestId?: string;
  maxCost?: number | null;
}

function plan(ask: Ask) {
  const prepared = preparedCompletion({ messages: [{ role: 'user', content: ask.text }] });
  prepared.weights = ask.weights ?? { cost: 0, latency: 0, quality: 1 };
  prepared.policies = { ...prepared.policies, max_cost: ask.maxCost ?? null };
  const inputs: PlanInputs = {
    prepared,
    space: space(ask.models),
    profile: profileRequest({ ...prepared.chat, model: '' }, router),
    registry,
    scoring: { weights: prepared.weights, quality: learnedQuality(router), expectedLatency: () => 800 },
    routerVersion: router.version,
    learning: ask.feedback ? { requestId: ask.requestId ?? 'request-1', feedback: ask.feedback } : null,
    now: new Date('2026-11-21T00:00:00Z'),
    modelExists: async () => false,
  };
  return planModels(inputs);
}

/** The candidate of that name in a plan's explanation. */
function candidate(p: { scores: { candidates: Array<{ model: string; quality: number; offline_quality: number; cost: number }> } }, name: string) {
  const found = p.scores.candidates.find((c) => c.model === name);
  if (!found) throw new Error(`no candidate ${name}`);
  return found;
}

const CODE = 'Write a TypeScript function that debounces another function, with a unit test.';
const CHAT = 'Hi! Can you recommend a good book for a long train ride?';

describe('the learned router decides', () => {
  it('by the profile of the kind of prompt it reads', async () => {
    const code = await plan({ text: CODE });
    expect(code.scores.router.kind).toBe('code');
    expect(code.attempts[0].model).toBe('coder');
    const chat = await plan({ text: CHAT });
    expect(chat.scores.router.kind).toBe('chat');
    expect(chat.attempts[0].model).toBe('strong');
  });

  it('by the weights: cost weight 1 takes the cheapest, balanced weights trade a little quality for a much lower cost', async () => {
    expect((await plan({ text: CODE, weights: { cost: 1, latency: 0, quality: 0 } })).attempts[0].model).toBe('cheap');
    const balanced = await plan({ text: CHAT, weights: { cost: 0.5, latency: 0, quality: 0.5 } });
    expect(balanced.attempts[0].model).toBe('cheap');
  });

  it('after the hard limits: a cost ceiling removes dear models before scoring', async () => {
    const free = await plan({ text: CHAT });
    const strongCost = candidate(free, 'strong').cost;
    const capped = await plan({ text: CHAT, maxCost: strongCost / 2 });
    expect(capped.scores.candidates.map((c) => c.model)).not.toContain('strong');
    expect(capped.attempts[0].model).not.toBe('strong');
  });

  it('deterministically: the same inputs in any order give the same plan', async () => {
    const first = await plan({ text: CODE, weights: { cost: 0.3, latency: 0.2, quality: 0.5 } });
    const again = await plan({ text: CODE, weights: { cost: 0.3, latency: 0.2, quality: 0.5 }, models: [cheap, strong, coder] });
    expect(again).toEqual(first);
  });

  it('and explains itself: each candidate with predicted quality, cost, latency and score, best first', async () => {
    const { scores, score } = await plan({ text: CODE, weights: { cost: 0.2, latency: 0.1, quality: 0.7 } });
    expect(scores.router).toEqual({ version: router.version, kind: 'code', smart_learn: false, explored: false });
    expect(scores.candidates).toHaveLength(3);
    for (const c of scores.candidates) {
      expect(c.quality).toBeGreaterThan(0);
      expect(c.quality).toBeLessThan(1);
      expect(c.offline_quality).toBe(c.quality);
      expect(c.cost).toBeGreaterThan(0);
      expect(c.latency).toBe(800);
    }
    expect(scores.candidates.map((c) => c.score)).toEqual([...scores.candidates.map((c) => c.score)].sort((a, b) => b - a));
    expect(score).toBe(scores.candidates[0].score);
    expect(scores.best_models).toEqual(scores.candidates.map((c) => c.model));
  });

  it("a harder prompt of the same kind lowers every model's predicted quality", async () => {
    const easy = await plan({ text: 'What is 2 + 2?' });
    const hard = await plan({ text: 'Prove that for every prime p > 3, p^2 - 1 is divisible by 24, and derive the general form of the divisor for p^k - 1.' });
    expect(easy.scores.router.kind).toBe('math');
    expect(hard.scores.router.kind).toBe('math');
    for (const c of hard.scores.candidates) expect(c.quality).toBeLessThan(candidate(easy, c.model).quality);
  });
});

describe('smart_learn in the decision', () => {
  const rows = (modelId: string, { ratings, goodRate, expected }: { ratings: number; goodRate: number; expected: number }) => [
    { modelId, kind: 'chat', ratings, good: Math.round(ratings * goodRate), expected: ratings * expected },
  ];

  it('drifts towards the models the Space rates well, once there are enough ratings', async () => {
    const offline = await plan({ text: CHAT, feedback: SpaceFeedback.EMPTY });
    expect(offline.attempts[0].model).toBe('strong');
    const strongOffline = candidate(offline, 'strong').offline_quality;
    const few = new SpaceFeedback(rows('strong', { ratings: 5, goodRate: 0, expected: strongOffline }));
    const fewPlan = await plan({ text: CHAT, feedback: few });
    const fewStrong = candidate(fewPlan, 'strong');
    expect(fewStrong.quality).toBeLessThan(fewStrong.offline_quality);
    expect(fewPlan.attempts[0].model).toBe('strong');
    const many = new SpaceFeedback(rows('strong', { ratings: 4 * MIN_RATINGS, goodRate: 0.3, expected: strongOffline }));
    const manyPlan = await plan({ text: CHAT, feedback: many });
    expect(manyPlan.attempts[0].model).not.toBe('strong');
    expect(manyPlan.scores.router.smart_learn).toBe(true);
  });

  it('explores rarely, deterministically per request, and only among near-best little-rated models', async () => {
    const ids = Array.from({ length: 400 }, (_, i) => `request-${i}`);
    const exploring = ids.filter((id) => shouldExplore(id));
    expect(exploring.length).toBeGreaterThan(0);
    expect(exploring.length).toBeLessThan(ids.length * 0.05);
    const near = routable({ ...strong, id: 'near', model: 'near' });
    const plans = await Promise.all(
      exploring.map((requestId) => plan({ text: CHAT, models: [strong, near, cheap], feedback: SpaceFeedback.EMPTY, requestId })),
    );
    for (const p of plans) {
      expect(p.scores.router.explored).toBe(true);
      expect(p.attempts[0].model).toBe(p.scores.candidates[1].model);
      expect(p.scores.candidates[0].score - p.scores.candidates[1].score).toBeLessThanOrEqual(0.05);
    }
    const calm = await plan({ text: CHAT, models: [strong, near, cheap], feedback: SpaceFeedback.EMPTY, requestId: ids.find((id) => !shouldExplore(id)) });
    expect(calm.scores.router.explored).toBe(false);
    expect(calm.attempts[0].model).toBe(calm.scores.candidates[0].model);
  });
});
