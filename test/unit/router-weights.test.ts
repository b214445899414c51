import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LabelledPrompt } from '../../tools/router-lab/evaluation/labelled-prompt';
import { shapeOf } from '../../src/routing/learned/prompt-features';
import { completionTokens, profileQuality, readPrompt } from '../../src/routing/learned/router-model';
import { trainRouterModel } from '../../tools/router-lab/learned/train-router';
import { fromWeightsFile, loadWeightsFile, weightsFileSchema } from '../../src/routing/learned/weights-file';
import { toWeightsFile } from '../../tools/router-lab/learned/weights-writer';
import { DEFAULT_WEIGHTS_FILE } from '../../src/config/weights-location';
import { QUALITY_CATEGORIES } from '../../src/domain/quality-categories';

/** A tiny labelled set: maths prompts that the strong model solves and the weak one mostly not, chat that both do. */
function tinySet(): LabelledPrompt[] {
  const lines: LabelledPrompt[] = [];
  for (let i = 0; i < 60; i++) {
    lines.push({
      id: `m${i}`,
      prompt: `Solve the equation ${i}x + ${i + 3} = ${2 * i} and give x.`,
      category: 'math',
      outcomes: { strong: 1, weak: i % 3 === 0 ? 1 : 0 },
      completion_tokens: { strong: 200, weak: 120 },
    });
    lines.push({
      id: `c${i}`,
      prompt: `Say hello to my friend number ${i} in a friendly way.`,
      category: 'chat',
      outcomes: { strong: 1, weak: 1 },
      completion_tokens: { strong: 40, weak: 60 },
    });
  }
  return lines;
}

const options = { version: 'test', seed: 3, buckets: 1 << 10, residuals: true };

describe('router training', () => {
  it('is deterministic for the same lines and seed', () => {
    const a = toWeightsFile(trainRouterModel(tinySet(), options), { seed: 3, sets: {}, models: 2 });
    const b = toWeightsFile(trainRouterModel(tinySet(), options), { seed: 3, sets: {}, models: 2 });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('learns the kinds, the models and their lengths from the lines', () => {
    const model = trainRouterModel(tinySet(), options);
    const maths = readPrompt(model, shapeOf('Solve the equation 7x + 2 = 30 and give x.'));
    expect(maths.kind).toBe('math');
    expect(readPrompt(model, shapeOf('Say hello to my friend Ana in a friendly way.')).kind).toBe('chat');
    const strongIndex = model.outcome.models.indexOf('strong');
    expect(strongIndex).toBeGreaterThanOrEqual(0);
    expect(completionTokens(model, 'strong', maths)).toBeGreaterThan(completionTokens(model, 'weak', maths));
  });
});

describe('the weights file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'router-weights-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('round-trips what transfers, within the 8-bit packing', () => {
    const model = trainRouterModel(tinySet(), options);
    const restored = fromWeightsFile(weightsFileSchema.parse(JSON.parse(JSON.stringify(toWeightsFile(model, { seed: 3, sets: { tiny: 120 }, models: 2 })))));
    const shape = shapeOf('Solve the equation 5x + 1 = 11 and give x.');
    const profile = (kind: string) => (kind === 'math' ? 0.7 : 0.9);
    expect(restored.classifier.kinds).toEqual(model.classifier.kinds);
    expect(readPrompt(restored, shape).kind).toBe(readPrompt(model, shape).kind);
    expect(profileQuality(restored, profile, readPrompt(restored, shape))).toBeCloseTo(profileQuality(model, profile, readPrompt(model, shape)), 2);
    expect(restored.outcome.models).toEqual([]);
  });

  it('refuses a file that is not router weights, naming what is wrong', () => {
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ format: 'something-else' }));
    expect(() => loadWeightsFile(bad)).toThrow(/bad\.json are invalid: format/);
  });

  it('ships weights whose kinds are exactly the catalog quality-profile categories', () => {
    const shipped = weightsFileSchema.parse(JSON.parse(readFileSync(DEFAULT_WEIGHTS_FILE, 'utf8')));
    expect([...shipped.kinds].sort()).toEqual([...QUALITY_CATEGORIES].sort());
    expect(shipped.training.sets.mmlu_pro).toBeGreaterThan(9000);
  });
});
