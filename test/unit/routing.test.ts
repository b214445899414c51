import { exclusionReason } from '../../src/routing/hard-limits';
import type { RequestProfile } from '../../src/routing/request-profile';
import { profileRequest } from '../../src/routing/request-profile';
import { readPrompt } from '../../src/routing/learned/router-model';
import { shapeOf } from '../../src/routing/learned/prompt-features';
import { learnedQuality, scoreCandidates } from '../../src/routing/scorer';
import { routable } from '../helpers/routable-model';
import { shippedRouter } from '../helpers/shipped-router';

const codePrompt = readPrompt(shippedRouter(), shapeOf('Write a Python function that parses this JSON and returns the keys sorted.'));
const profile = (overrides: Partial<RequestProfile> = {}): RequestProfile => ({
  promptTokens: 100,
  expectedCompletionTokens: 100,
  needs: { functions: false, vision: false, json: false },
  reading: codePrompt,
  ...overrides,
});
const catalogQuality = learnedQuality(shippedRouter());
const now = new Date('2026-06-01T00:00:00Z');
const limits = { maxCost: null, needsGdprModel: false, now };

describe('profileRequest', () => {
  it('counts prompt tokens and sees what the request needs', () => {
    const p = profileRequest(
      {
        model: '',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Solve 2 + 2' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } },
            ],
          },
        ],
        tools: [{ type: 'function', function: { name: 'f' } }],
        response_format: { type: 'json_object' },
        max_tokens: 42,
      },
      shippedRouter(),
    );
    expect(p.promptTokens).toBeGreaterThan(4);
    expect(p.expectedCompletionTokens).toBeLessThanOrEqual(42);
    expect(p.needs).toEqual({ functions: true, vision: true, json: true });
    expect(p.reading.kind).toBe('math');
  });
});

describe('hard limits', () => {
  it.each([
    [{ supports: { ...routable().supports, functions: false } }, profile({ needs: { functions: true, vision: false, json: false } }), 'does not support tools'],
    [{ supports: { ...routable().supports, vision: false } }, profile({ needs: { functions: false, vision: true, json: false } }), 'does not accept images'],
    [{ supports: { ...routable().supports, json: false } }, profile({ needs: { functions: false, vision: false, json: true } }), 'does not support JSON mode'],
    [{ contextWindow: 100 }, profile(), 'prompt of 100 tokens exceeds the context window of 100'],
    [{ until: new Date('2026-01-01') }, profile(), 'retired'],
  ])('excludes %j', (model, p, reason) => {
    expect(exclusionReason(routable(model), p, limits)).toBe(reason);
  });

  it('applies max_cost to the estimate and privacy level 3 to GDPR models', () => {
    const model = routable({ promptTokenCost: 1e-3, completionTokenCost: 1e-3 });
    expect(exclusionReason(model, profile(), { ...limits, maxCost: 0.1 })).toBe('estimated cost exceeds max_cost 0.1');
    expect(exclusionReason(model, profile(), { ...limits, maxCost: 0.3 })).toBeNull();
    expect(exclusionReason(model, profile(), { ...limits, needsGdprModel: true })).toContain('privacy level 3');
    expect(exclusionReason(routable({ isGdpr: true }), profile(), { ...limits, needsGdprModel: true })).toBeNull();
  });
});

describe('scoreCandidates', () => {
  const cheap = routable({
    id: 'cheap',
    model: 'cheap',
    promptTokenCost: 1e-7,
    completionTokenCost: 1e-7,
    quality: { overall: 0.5, categories: { code: 0.4 } },
  });
  const strong = routable({
    id: 'strong',
    model: 'strong',
    promptTokenCost: 1e-5,
    completionTokenCost: 3e-5,
    quality: { overall: 0.9, categories: { code: 0.95 } },
  });
  const latency = () => 1000;

  it('follows the weights', () => {
    const byCost = scoreCandidates([strong, cheap], profile(), {
      weights: { cost: 1, latency: 0, quality: 0 },
      quality: catalogQuality,
      expectedLatency: latency,
    });
    expect(byCost.map((c) => c.model.model)).toEqual(['cheap', 'strong']);
    const byQuality = scoreCandidates([cheap, strong], profile(), {
      weights: { cost: 0, latency: 0, quality: 1 },
      quality: catalogQuality,
      expectedLatency: latency,
    });
    expect(byQuality.map((c) => c.model.model)).toEqual(['strong', 'cheap']);
    expect(byQuality[0].score).toBeCloseTo(byQuality[0].quality, 4);
    expect(byQuality[0]).toMatchObject({ latency: 1000, offlineQuality: byQuality[0].quality });
  });

  it('reads the profile of the kind the prompt is, and is deterministic', () => {
    expect(codePrompt.kind).toBe('code');
    const inputs = { weights: { cost: 0.5, latency: 0, quality: 0.5 }, quality: catalogQuality, expectedLatency: latency };
    const first = scoreCandidates([cheap, strong], profile(), inputs);
    const codeStrong = routable({ ...strong, id: 'code-strong', quality: { overall: 0.9, categories: { code: 0.6 } } });
    expect(first.find((c) => c.model.model === 'strong')?.quality).toBeGreaterThan(scoreCandidates([codeStrong], profile(), inputs)[0].quality);
    expect(scoreCandidates([strong, cheap], profile(), inputs)).toEqual(first);
  });
});
