import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LabelledPrompt } from '../../tools/router-lab/evaluation/labelled-prompt';
import { convertAlpacaEval } from '../../tools/router-lab/datasets/alpaca-eval';
import { convertRoutellmGsm8k } from '../../tools/router-lab/datasets/routellm-gsm8k';
import { convertRoutellmMmlu } from '../../tools/router-lab/datasets/routellm-mmlu';
import { convertMmluPro } from '../../tools/router-lab/datasets/mmlu-pro';
import { convertMtBench } from '../../tools/router-lab/datasets/mt-bench';
import { runConvert } from '../../tools/router-lab/datasets/convert-command';
import { parseCsv, readCsvTable } from '../../tools/router-lab/datasets/csv';
import { convertDataset, DATASETS, readJsonl, restrictModels, seededRandom, splitFolds, writeJsonl } from '../../tools/router-lab/datasets';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'routing');
const GPT4 = 'gpt-4-1106-preview';
const MIXTRAL = 'mixtral-8x7b-instruct-v0.1';

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'routing-datasets-'));
});
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

describe('parseCsv', () => {
  it.each<[string, string, string[][]]>([
    [
      'plain records',
      'a,b\n1,2\n',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    [
      'no final line break',
      'a,b\n1,2',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    [
      'CRLF line breaks',
      'a,b\r\n1,2\r\n',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    [
      'empty fields',
      ',x,\n,,\n',
      [
        ['', 'x', ''],
        ['', '', ''],
      ],
    ],
    ['a comma inside quotes', '"a,b",c\n', [['a,b', 'c']]],
    ['doubled quotes', '"say ""hi""",""""\n', [['say "hi"', '"']]],
    ['line breaks inside quotes', '"one\ntwo\r\nthree",x\n', [['one\ntwo\r\nthree', 'x']]],
    ['an empty quoted field last', 'a,""', [['a', '']]],
    ['a lone empty quoted field', '""\n', [['']]],
    ['a byte order mark', '\ufeffa,b\n', [['a', 'b']]],
    ['a carriage return inside a field', 'a\rb,c\n', [['a\rb', 'c']]],
    ['empty text', '', []],
  ])('parses %s', (_, text, records) => {
    expect(parseCsv(text)).toEqual(records);
  });

  it.each([
    ['an unclosed quote, naming the line it opens on', 'a\n"b,\nc\n', 'test.csv: line 2: a quoted field is never closed'],
    ['text after a closing quote', 'a\n"b"c\n', 'test.csv: line 2: text after the closing quote of a field'],
    ['a quote inside an unquoted field', 'ab"c"\n', 'test.csv: line 1: a quote inside an unquoted field'],
    ['errors after a quoted line break on the right line', '"a\nb",x\ny"\n', 'test.csv: line 3: a quote inside an unquoted field'],
  ])('rejects %s', (_, text, message) => {
    expect(() => parseCsv(text, 'test.csv')).toThrow(message);
  });

  it('reads a table and rejects a row narrower than the header', () => {
    const file = path.join(tmp, 't.csv');
    writeFileSync(file, 'a,b\n1,2\n3\n');
    expect(() => readCsvTable(file)).toThrow(`${file}: data row 2 has 1 fields, the header 2.`);
    writeFileSync(file, 'a,b\n1,"x\ny"\n');
    expect(readCsvTable(file)).toEqual({ header: ['a', 'b'], rows: [['1', 'x\ny']] });
  });
});

describe('converters on fixtures', () => {
  it('converts MMLU-Pro: options as letters, empty cells skipped, unanswered questions left out', () => {
    expect(convertMmluPro(FIXTURES)).toEqual<LabelledPrompt[]>([
      {
        id: 'mmlu-pro-70',
        prompt: "Which gas makes up most of Earth's atmosphere?\nA. Oxygen\nB. Nitrogen\nC. Carbon dioxide, mostly\nD. Argon",
        category: 'chemistry',
        outcomes: { 'DeepSeek-Coder-V2': 1, 'Llama-2-7b-hf': 0, 'gemini-1.5-pro-002': 1 },
        // chars / 4 rounded half up: 282 → 71, 230 → 58, 195 → 49; Yi-6B has chars but no outcome.
        completion_tokens: { 'DeepSeek-Coder-V2': 71, 'Llama-2-7b-hf': 58, 'gemini-1.5-pro-002': 49 },
      },
      {
        id: 'mmlu-pro-73',
        prompt: 'What does this print?\nprint("a,b")\nA. a,b\nB. "a,b"\nC. a b',
        category: 'computer science',
        outcomes: { 'gemini-1.5-flash-002': 1, 'gemini-1.5-pro-002': 0 },
        completion_tokens: { 'gemini-1.5-pro-002': 3 },
      },
    ]);
  });

  it('converts RouteLLM MMLU with price-table model names, leaving out contaminated prompts by default', () => {
    const lines = convertRoutellmMmlu(FIXTURES);
    expect(lines).toEqual<LabelledPrompt[]>([
      {
        id: 'routellm-mmlu-anatomy-1',
        prompt:
          'A "dished face" profile is often associated with\nA. a protruding mandible, often\nB. a recessive maxilla\nC. an enlarged frontal bone\nD. defective sinus\nAnswer:',
        category: 'anatomy',
        outcomes: { [MIXTRAL]: 0, [GPT4]: 1 },
      },
      {
        id: 'routellm-mmlu-virology-0',
        prompt: 'Which virus causes measles?\nA. Morbillivirus\nB. Rotavirus\nC. Norovirus\nD. Adenovirus\nAnswer:',
        category: 'virology',
        outcomes: { [MIXTRAL]: 1, [GPT4]: 0 },
      },
    ]);
    const kept = convertRoutellmMmlu(FIXTURES, { keepContaminated: true });
    expect(kept.map((line) => line.id)).toEqual(['routellm-mmlu-anatomy-0', 'routellm-mmlu-anatomy-1', 'routellm-mmlu-virology-0']);
  });

  it('fails loudly on a RouteLLM column naming an unknown model', () => {
    cpSync(path.join(FIXTURES, 'routellm_2model'), path.join(tmp, 'routellm_2model'), { recursive: true });
    const file = path.join(tmp, 'routellm_2model', 'mmlu_responses', 'mmlu_anatomy.csv');
    writeFileSync(file, readFileSync(file, 'utf8').replace('gpt-4-1106-preview', 'gpt-4o'));
    expect(() => convertRoutellmMmlu(tmp)).toThrow("unknown RouteLLM model 'gpt-4o'");
  });

  it('converts RouteLLM GSM8K with completion tokens from response characters (code points)', () => {
    expect(convertRoutellmGsm8k(FIXTURES)).toEqual<LabelledPrompt[]>([
      {
        id: 'routellm-gsm8k-0',
        prompt: 'Janet’s ducks lay 16 eggs per day. How many are left after she eats 3?',
        category: 'math',
        outcomes: { [MIXTRAL]: 1, [GPT4]: 1 },
        completion_tokens: { [MIXTRAL]: 5, [GPT4]: 8 },
      },
    ]);
    const kept = convertRoutellmGsm8k(FIXTURES, { keepContaminated: true });
    // 43 characters → 11; '2 + 1 = 3 bolts 🧵' is 17 code points (18 UTF-16 units) → 4.
    expect(kept[1]).toMatchObject({ id: 'routellm-gsm8k-1', outcomes: { [MIXTRAL]: 0, [GPT4]: 1 }, completion_tokens: { [MIXTRAL]: 11, [GPT4]: 4 } });
  });

  it('converts MT-Bench per question and turn, scores / 10, unreadable scores and contaminated questions left out', () => {
    expect(convertMtBench(FIXTURES)).toEqual<LabelledPrompt[]>([
      {
        id: 'mt-bench-111-turn1',
        prompt: 'The vertices of a triangle are at points (0, 0), (-1, 1), and (3, 3). What is the area of the triangle?',
        category: 'math',
        outcomes: { [GPT4]: 1, [MIXTRAL]: 0.7 },
      },
      {
        id: 'mt-bench-111-turn2',
        prompt:
          "The vertices of a triangle are at points (0, 0), (-1, 1), and (3, 3). What is the area of the triangle?\n\nWhat's area of the circle circumscribing the triangle?",
        category: 'math',
        outcomes: { [GPT4]: 0.9 },
      },
    ]);
    const kept = convertMtBench(FIXTURES, { keepContaminated: true });
    expect(kept.map((line) => line.id)).toEqual(['mt-bench-81-turn1', 'mt-bench-81-turn2', 'mt-bench-111-turn1', 'mt-bench-111-turn2']);
    expect(kept[1].outcomes).toEqual({ [GPT4]: 0.9, [MIXTRAL]: 0.2 });
  });

  it('converts AlpacaEval: preference − 1, NullModel and empty cells left out, category from dataset when present', () => {
    expect(convertAlpacaEval(FIXTURES)).toEqual<LabelledPrompt[]>([
      {
        id: 'alpaca-eval-0',
        prompt: 'What are the names of some famous actors that started their careers on Broadway?',
        category: 'helpful_base',
        outcomes: { 'alpaca-7b': 1.827e-7, 'claude-2': 0.7328323962, gpt4_1106_preview: 0.5 },
        completion_tokens: { 'alpaca-7b': 37, 'claude-2': 643, gpt4_1106_preview: 526 },
      },
      {
        id: 'alpaca-eval-1',
        prompt: 'Write a haiku, please, about "autumn".',
        category: 'koala',
        outcomes: { 'claude-2': 0.25 },
        completion_tokens: { 'claude-2': 2 },
      },
      { id: 'alpaca-eval-2', prompt: 'An instruction with no source dataset.', outcomes: { claude: 1 } },
    ]);
  });

  it('names every set in DATASETS and converts each through convertDataset', () => {
    for (const name of DATASETS) expect(convertDataset(name, FIXTURES).length).toBeGreaterThan(0);
    expect(convertDataset('mt_bench', FIXTURES, { keepContaminated: true })).toHaveLength(4);
  });
});

const lineOf = (id: string, outcomes: Record<string, number>): LabelledPrompt => ({ id, prompt: `prompt ${id}`, outcomes });

describe('splitFolds', () => {
  const lines = Array.from({ length: 23 }, (_, i) => lineOf(`p${i}`, { a: i % 2 }));
  const ids = (set: LabelledPrompt[]) => set.map((line) => line.id);

  it('partitions the lines into test folds, each trained on all the others', () => {
    const folds = splitFolds(lines, 5, 7);
    expect(folds).toHaveLength(5);
    const tested = folds.flatMap((fold) => ids(fold.test));
    expect([...tested].sort()).toEqual(ids(lines).sort());
    expect(new Set(tested).size).toBe(lines.length);
    for (const fold of folds) {
      expect(fold.test.length === 4 || fold.test.length === 5).toBe(true);
      expect([...ids(fold.train), ...ids(fold.test)].sort()).toEqual(ids(lines).sort());
      expect(ids(fold.train).filter((id) => ids(fold.test).includes(id))).toEqual([]);
    }
  });

  it('is deterministic for a seed and differs for another seed', () => {
    expect(splitFolds(lines, 5, 7)).toEqual(splitFolds(lines, 5, 7));
    expect(splitFolds(lines, 5, 8).map((fold) => ids(fold.test))).not.toEqual(splitFolds(lines, 5, 7).map((fold) => ids(fold.test)));
  });

  it('rejects fewer than two folds or more folds than lines', () => {
    expect(() => splitFolds(lines, 1, 0)).toThrow('at least 2');
    expect(() => splitFolds(lines.slice(0, 3), 4, 0)).toThrow('Cannot split 3 lines into 4 folds.');
  });
});

describe('seededRandom', () => {
  it('repeats its sequence for a seed and stays in [0, 1)', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const values = Array.from({ length: 1000 }, () => a());
    expect(values).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    // mulberry32's published first value for seed 1.
    expect(seededRandom(1)()).toBeCloseTo(0.6270739405881613, 15);
    expect(seededRandom(2)()).not.toBe(seededRandom(1)());
  });
});

describe('restrictModels', () => {
  it('keeps only the named models and drops lines left with no outcome', () => {
    const lines: LabelledPrompt[] = [{ ...lineOf('x', { a: 1, b: 0, c: 1 }), completion_tokens: { a: 5, c: 7 }, cost: { b: 0.1 } }, lineOf('y', { c: 1 })];
    expect(restrictModels(lines, ['a', 'b'])).toEqual([
      { id: 'x', prompt: 'prompt x', outcomes: { a: 1, b: 0 }, completion_tokens: { a: 5 }, cost: { b: 0.1 } },
    ]);
    expect(restrictModels(lines, ['b'])).toEqual([{ id: 'x', prompt: 'prompt x', outcomes: { b: 0 }, cost: { b: 0.1 } }]);
  });
});

describe('readJsonl and writeJsonl', () => {
  it('round-trips lines', () => {
    const file = path.join(tmp, 'deep', 'set.jsonl');
    const lines = [lineOf('a', { m: 1 }), { ...lineOf('b', { m: 0.5 }), category: 'math', prompt: [{ role: 'user' as const, content: 'hi' }] }];
    writeJsonl(file, lines);
    expect(readJsonl(file)).toEqual(lines);
  });

  it('names the file, line and field of a bad line', () => {
    const file = path.join(tmp, 'bad.jsonl');
    writeFileSync(file, `${JSON.stringify(lineOf('a', { m: 1 }))}\n\n${JSON.stringify(lineOf('b', { m: 1.5 }))}\n`);
    expect(() => readJsonl(file)).toThrow(new RegExp(`^${file}: line 3: field 'outcomes\\.m': `));
    writeFileSync(file, '{"id": "a",\n');
    expect(() => readJsonl(file)).toThrow(`${file}: line 1: not JSON`);
  });
});

describe('router:convert', () => {
  const run = (args: string[]) => {
    const io = { stdout: '', stderr: '' };
    const code = runConvert(args, { out: (text) => (io.stdout += text), err: (text) => (io.stderr += text) }, tmp);
    return { code, ...io };
  };

  it('writes the set and its folds, restricting only the test folds to --models', () => {
    const result = run(['--set', 'mmlu_pro', '--data', FIXTURES, '--out', 'out', '--folds', '2', '--seed', '3', '--models', 'gemini-1.5-pro-002']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const summaries = result.stdout
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as { file: string; lines: number; models: number });
    expect(summaries.map((s) => s.file)).toEqual([
      'out/mmlu_pro.jsonl',
      'out/mmlu_pro.fold1.train.jsonl',
      'out/mmlu_pro.fold1.test.jsonl',
      'out/mmlu_pro.fold2.train.jsonl',
      'out/mmlu_pro.fold2.test.jsonl',
    ]);
    expect(summaries[0]).toEqual({ file: 'out/mmlu_pro.jsonl', lines: 2, models: 4 });
    for (const k of [1, 2]) {
      const train = readJsonl(path.join(tmp, 'out', `mmlu_pro.fold${k}.train.jsonl`));
      const test = readJsonl(path.join(tmp, 'out', `mmlu_pro.fold${k}.test.jsonl`));
      expect(test.every((line) => Object.keys(line.outcomes).join() === 'gemini-1.5-pro-002')).toBe(true);
      expect(train.length + test.length).toBe(2);
    }
  });

  it('fails with a message on --models without --folds, or a model the set lacks', () => {
    expect(run(['--set', 'mt_bench', '--data', FIXTURES, '--models', GPT4])).toMatchObject({
      code: 1,
      stderr: '--seed and --models apply to the folds: give --folds too.\n',
    });
    const unknown = run(['--set', 'mt_bench', '--data', FIXTURES, '--folds', '2', '--models', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('mt_bench: no outcomes for nope');
    expect(run(['--set', 'nope']).code).toBe(1);
    expect(existsSync(path.join(tmp, 'build'))).toBe(false);
  });
});
