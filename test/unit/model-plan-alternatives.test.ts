import { planModels, type PlanInputs } from '../../src/pipeline/model-plan';
import { spaceContext } from '../helpers/space-context';
import type { ProviderBinding, ProviderRegistry } from '../../src/providers/registry';
import { profileRequest } from '../../src/routing/request-profile';
import { learnedQuality } from '../../src/routing/scorer';

import { preparedCompletion } from '../helpers/prepared-completion';
import { routable } from '../helpers/routable-model';
import { shippedRouter } from '../helpers/shipped-router';

const router = shippedRouter();
const registry: ProviderRegistry = { resolve: (target) => (target.provider === 'unconfigured' ? null : ({} as ProviderBinding)) };

/** Six models ranked m1 > … > m6 on quality alone; m6's provider is not configured. */
const models = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4].map((overall, i) =>
  routable({ id: `m${i + 1}`, model: `m${i + 1}`, provider: i === 5 ? 'unconfigured' : 'openai', quality: { overall, categories: {} } }),
);
const byName = (name: string) => models.find((m) => m.model === name) ?? models[0];

function plan({ chain, maxSwitches, named }: { chain: string[]; maxSwitches: number; named?: string }) {
  const prepared = preparedCompletion();
  prepared.weights = { cost: 0, latency: 0, quality: 1 };
  prepared.policies = { ...prepared.policies, max_switch_model_retries: maxSwitches };
  prepared.requestedModel = named ?? null;
  const space = spaceContext({
    weights: prepared.weights,
    policies: { ...prepared.policies, privacy_level: 1 },
    hasFailoverChain: chain.length > 0,
    models,
    failoverChain: chain.map(byName),
  });
  const inputs: PlanInputs = {
    prepared,
    space,
    profile: profileRequest({ ...prepared.chat, model: '' }, router),
    registry,
    scoring: { weights: prepared.weights, quality: learnedQuality(router), expectedLatency: () => 800 },
    routerVersion: router.version,
    learning: null,
    now: new Date('2026-11-21T00:00:00Z'),
    modelExists: async () => false,
  };
  return planModels(inputs);
}

const names = async (p: ReturnType<typeof plan>) => (await p).attempts.map((m) => m.model);

describe('the alternatives of a model plan', () => {
  it('keeps every eligible model, the failover chain first, however few switches the Space allows', async () => {
    // Which models are cooling down is known only when they are tried: the attempt runner counts the switches.
    expect(await names(plan({ chain: ['m5', 'm3'], maxSwitches: 1 }))).toEqual(['m1', 'm5', 'm3', 'm2', 'm4']);
    expect(await names(plan({ chain: [], maxSwitches: 0 }))).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
  });

  it('does the same after a named model', async () => {
    expect(await names(plan({ chain: ['m5'], maxSwitches: 2, named: 'm3' }))).toEqual(['m3', 'm5', 'm1', 'm2', 'm4']);
  });
});

describe('a named model', () => {
  /** A profile that records which of its costly parts were read. */
  function watchedProfile(prepared: ReturnType<typeof preparedCompletion>) {
    const profile = profileRequest({ ...prepared.chat, model: '' }, router);
    const read: string[] = [];
    const watched = Object.create(profile) as typeof profile;
    for (const part of ['promptTokens', 'reading', 'expectedCompletionTokens'] as const) {
      Object.defineProperty(watched, part, {
        get: () => {
          read.push(part);
          return profile[part];
        },
      });
    }
    return { profile: watched, read };
  }

  it('is planned without counting or reading the prompt; the alternatives are ranked once a failover walks past it', async () => {
    const prepared = preparedCompletion();
    prepared.weights = { cost: 0, latency: 0, quality: 1 };
    prepared.requestedModel = 'm3';
    const { profile, read } = watchedProfile(prepared);
    const space = spaceContext({ weights: prepared.weights, policies: { ...prepared.policies, privacy_level: 1 }, models });
    const named = await planModels({
      prepared,
      space,
      profile,
      registry,
      scoring: { weights: prepared.weights, quality: learnedQuality(router), expectedLatency: () => 800 },
      routerVersion: router.version,
      learning: null,
      now: new Date('2026-11-21T00:00:00Z'),
      modelExists: async () => false,
    });
    const walked = named.choices[Symbol.iterator]();
    expect(walked.next().value?.model).toBe('m3');
    expect(read).toEqual([]);
    expect(named.scores.candidates).toEqual([]);
    expect(named.score).toBe(0);
    expect(walked.next().value?.model).toBe('m1');
    expect(read).toContain('reading');
    expect(named.scores.candidates.map((c) => c.model)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect(named.attempts.map((m) => m.model)).toEqual(['m3', 'm1', 'm2', 'm4', 'm5']);
  });
});
