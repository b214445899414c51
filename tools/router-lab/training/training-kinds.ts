import type { LabelledPrompt } from '../evaluation/labelled-prompt';

/**
 * Each shared set's prompts mapped onto the catalog's quality-profile categories, so the shipped kind
 * classifier speaks the catalog's language. MMLU-Pro lines keep their category; GSM8K is maths; MT-Bench
 * categories map by meaning; AlpacaEval instructions carry no usable category, so a few keyword rules
 * sort them into code, writing, maths or chat.
 */
const MT_BENCH_KINDS: Record<string, string> = {
  writing: 'writing',
  roleplay: 'writing',
  humanities: 'writing',
  reasoning: 'reasoning',
  stem: 'reasoning',
  math: 'math',
  coding: 'code',
  extraction: 'chat',
};

const INSTRUCTION_RULES: ReadonlyArray<{ kind: string; pattern: RegExp }> = [
  { kind: 'code', pattern: /```|\b(python|javascript|typescript|java|c\+\+|sql|html|css|regex|bash|function|code|program|script|algorithm|api)\b/i },
  { kind: 'math', pattern: /\b(solve|calculate|equation|integral|derivative|probability)\b|\d+\s*[-+*/^]\s*\d+/i },
  { kind: 'writing', pattern: /\b(write|story|poem|essay|email|letter|blog|slogan|rewrite|paraphrase|summari[sz]e|tweet|lyrics|outline)\b/i },
];

export function trainingKind(set: string, line: LabelledPrompt): string {
  if (set === 'mmlu_pro') return line.category ?? 'other';
  if (set === 'routellm_gsm8k') return 'math';
  if (set === 'mt_bench') return MT_BENCH_KINDS[line.category ?? ''] ?? 'chat';
  const text = typeof line.prompt === 'string' ? line.prompt : line.prompt.map((m) => m.content).join('\n');
  return INSTRUCTION_RULES.find(({ pattern }) => pattern.test(text))?.kind ?? 'chat';
}
