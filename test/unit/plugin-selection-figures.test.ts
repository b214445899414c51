import { resolve } from 'node:path';
import { evaluateSelection } from '../../tools/plugin-selection/evaluation/evaluate';
import { readLabelledPrompts } from '../../tools/plugin-selection/evaluation/labelled-set';
import { CLASSIFIED_PLUGINS, splitFigures } from '../../tools/plugin-selection/evaluation/metrics';

const prompts = readLabelledPrompts(resolve(__dirname, '../fixtures/plugin-selection/prompts.jsonl'));

describe('the labelled set', () => {
  it('has at least 200 prompts, with a held-out test part of at least 150', () => {
    expect(prompts.length).toBeGreaterThanOrEqual(200);
    expect(prompts.filter((p) => p.split === 'test').length).toBeGreaterThanOrEqual(150);
  });

  it.each(CLASSIFIED_PLUGINS)('has at least 30 prompts needing %s, in both halves', (plugin) => {
    const positives = prompts.filter((p) => p.plugins.includes(plugin));
    expect(positives.length).toBeGreaterThanOrEqual(30);
    expect(positives.filter((p) => p.split === 'test').length).toBeGreaterThanOrEqual(15);
  });

  it('has negatives, multi-plugin prompts and no duplicates', () => {
    expect(prompts.filter((p) => p.plugins.length === 0).length).toBeGreaterThanOrEqual(60);
    expect(prompts.filter((p) => p.plugins.length > 1).length).toBeGreaterThanOrEqual(10);
    const keys = prompts.map((p) => JSON.stringify([p.text, p.files, p.space_has_files]));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('asks for space-search only where the Space has files', () => {
    expect(prompts.filter((p) => p.plugins.includes('space-search') && !p.space_has_files)).toEqual([]);
  });
});

/**
 * Floors a little below what the shipped cues reach on the held-out half (see
 * docs/plugins/auto-tools-selection.md): one more mistake on a plugin still passes, two more fail.
 */
const TEST_FLOORS = {
  'web-search': { precision: 0.95, recall: 0.83 },
  'space-search': { precision: 0.95, recall: 0.95 },
  'image-generation-generic': { precision: 0.95, recall: 0.95 },
  'transcribe-audio': { precision: 0.9, recall: 0.94 },
  'social-post': { precision: 0.94, recall: 0.94 },
} as const;

describe('pre-selection on the held-out test half', () => {
  const evaluation = evaluateSelection(prompts);

  it.each(CLASSIFIED_PLUGINS)('keeps precision and recall of %s at or above the floor', (plugin) => {
    const figures = evaluation.test.perPlugin[plugin];
    expect(figures.precision).toBeGreaterThanOrEqual(TEST_FLOORS[plugin].precision);
    expect(figures.recall).toBeGreaterThanOrEqual(TEST_FLOORS[plugin].recall);
  });

  it('keeps the micro-averaged F1 at or above 0.95', () => {
    expect(evaluation.test.micro.f1).toBeGreaterThanOrEqual(0.95);
  });
});

describe('pre-selection on the unseen set', () => {
  const unseen = readLabelledPrompts(resolve(__dirname, '../fixtures/plugin-selection/prompts-unseen.jsonl'));

  it('is all held out', () => {
    expect(unseen.every((p) => p.split === 'test')).toBe(true);
  });

  /** It reached 0.788 when it was first scored; a guard against losing cues, not a target to tune to. */
  it('keeps the micro-averaged F1 at or above 0.76', () => {
    expect(evaluateSelection(unseen).test.micro.f1).toBeGreaterThanOrEqual(0.76);
  });
});

describe('splitFigures', () => {
  it('counts per plugin and sums the counts for the micro average', () => {
    const figures = splitFigures([
      { expected: ['web-search'], chosen: ['web-search'] },
      { expected: ['web-search', 'social-post'], chosen: ['web-search'] },
      { expected: [], chosen: ['image-generation-generic'] },
      { expected: [], chosen: [] },
    ]);
    expect(figures.perPlugin['web-search']).toMatchObject({ truePositives: 2, falsePositives: 0, falseNegatives: 0, precision: 1, recall: 1 });
    expect(figures.perPlugin['social-post']).toMatchObject({ falseNegatives: 1, precision: 1, recall: 0, f1: 0 });
    expect(figures.perPlugin['image-generation-generic']).toMatchObject({ falsePositives: 1, precision: 0, support: 0 });
    expect(figures.micro).toMatchObject({ truePositives: 2, falsePositives: 1, falseNegatives: 1, precision: 2 / 3, recall: 2 / 3 });
    expect(figures.exactMatch).toBe(0.5);
  });
});
