import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { catalogSchema } from '../../src/schemas/model-catalog';
import { catalogEntryToRow } from '../../prisma/catalog/to-row';
import type { RoutableModel } from '../../src/domain/routable-model';
import { shapeOf } from '../../src/routing/learned/prompt-features';
import { readPrompt } from '../../src/routing/learned/router-model';
import { loadWeightsFile } from '../../src/routing/learned/weights-file';
import { DEFAULT_WEIGHTS_FILE } from '../../src/config/weights-location';
import { toRoutableModel } from '../../src/store/space-context';
import { profileRequest } from '../../src/routing/request-profile';
import { learnedQuality, scoreCandidates } from '../../src/routing/scorer';
import { countTokens } from '../../src/text/token-count';
import { distribution, type Distribution } from './stats';

/**
 * `npm run bench:router`: the learned router's decision in process — read the prompt (features, kind,
 * ease, length), count its tokens, score 20 catalog candidates — per request, against counting the
 * prompt's tokens alone (work any router does) measured in the same run. Prompts: MMLU-Pro questions and
 * AlpacaEval instructions from tools/router-lab/data/routing when present, else built-in ones.
 */
const { values: args } = parseArgs({
  options: {
    prompts: { type: 'string', default: '2000' },
    candidates: { type: 'string', default: '20' },
    data: { type: 'string', default: 'tools/router-lab/data/routing' },
  },
});

function prompts(limit: number): string[] {
  const dir = path.resolve(args.data);
  const found: string[] = [];
  const mmlu = path.join(dir, 'mmlu_pro', 'questions.jsonl');
  const alpaca = path.join(dir, 'alpaca_eval_compact', 'instructions.jsonl');
  if (existsSync(mmlu)) {
    for (const line of readFileSync(mmlu, 'utf8').split('\n').slice(0, limit)) {
      if (!line) continue;
      const q = JSON.parse(line) as { question: string; options: string[] };
      found.push(`${q.question}\n${q.options.map((o, i) => `${String.fromCharCode(65 + i)}. ${o}`).join('\n')}`);
    }
  }
  if (existsSync(alpaca))
    for (const line of readFileSync(alpaca, 'utf8').split('\n')) if (line) found.push((JSON.parse(line) as { instruction: string }).instruction);
  if (found.length === 0)
    for (let i = 0; i < limit; i++)
      found.push(`Question ${i}: explain step by step how ${i} + ${i * 7} relates to modular arithmetic, then write a Python function for it.`);
  return found.slice(0, limit);
}

function candidates(count: number): RoutableModel[] {
  const catalog = catalogSchema.parse(JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'prisma', 'catalog', 'models.json'), 'utf8')));
  return catalog.models
    .filter((entry) => entry.test_behaviour === undefined)
    .slice(0, count)
    .map((entry, i) => toRoutableModel({ ...catalogEntryToRow(entry), id: `m${i}`, at: '', base_cost: 0 }));
}

function timeEach(texts: string[], work: (text: string) => unknown): Distribution {
  for (const text of texts.slice(0, 200)) work(text);
  const samples = texts.map((text) => {
    const start = process.hrtime.bigint();
    work(text);
    return Number(process.hrtime.bigint() - start) / 1e6;
  });
  return distribution(samples);
}

const router = loadWeightsFile(DEFAULT_WEIGHTS_FILE);
const quality = learnedQuality(router);
const models = candidates(Number(args.candidates));
const texts = prompts(Number(args.prompts));
const weights = { cost: 0.3, latency: 0.2, quality: 0.5 };
const decide = (text: string) => {
  const profile = profileRequest({ model: '', messages: [{ role: 'user', content: text }] }, router);
  return scoreCandidates(models, profile, { weights, quality, expectedLatency: () => 900 })[0];
};
const tokensOnly = timeEach(texts, (text) => countTokens(text));
const readOnly = timeEach(texts, (text) => readPrompt(router, shapeOf(text)));
const decision = timeEach(texts, decide);
const ms = (value: number) => Number(value.toFixed(3));
const summary = {
  prompts: texts.length,
  candidates: models.length,
  mean_prompt_chars: Math.round(texts.reduce((sum, t) => sum + t.length, 0) / texts.length),
  baseline_count_tokens_ms: { p50: ms(tokensOnly.p50), p99: ms(tokensOnly.p99) },
  read_prompt_ms: { p50: ms(readOnly.p50), p99: ms(readOnly.p99) },
  decision_ms: { p50: ms(decision.p50), p99: ms(decision.p99), max: ms(decision.max) },
  decision_vs_count_tokens: { p50: ms(decision.p50 / tokensOnly.p50), p99: ms(decision.p99 / tokensOnly.p99) },
  target_p99_ms: 2,
};
process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
