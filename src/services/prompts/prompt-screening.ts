/** Automated checks a submitted prompt must pass before a person reviews it. */
const SECRET_PATTERNS: ReadonlyArray<{ pattern: RegExp; what: string }> = [
  { pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----/, what: 'a private key' },
  { pattern: /\b(?:sk|sy)-[A-Za-z0-9_-]{20,}/, what: 'an API key' },
  { pattern: /\bAKIA[0-9A-Z]{16}\b/, what: 'an AWS access key' },
  { pattern: /\bgh[pousr]_[A-Za-z0-9]{36,}\b/, what: 'a GitHub token' },
  { pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/, what: 'a Slack token' },
];

/** Public prompts are meant to be reused inside requests; beyond this they crowd out the context window. */
export const MAX_PUBLIC_PROMPT_TOKENS = 32_000;

export type ScreeningResult = { passed: true } | { passed: false; reason: string };

export function screenPrompt(text: string, tokens: number): ScreeningResult {
  const secret = SECRET_PATTERNS.find(({ pattern }) => pattern.test(text));
  if (secret) return { passed: false, reason: `Automated screening: the prompt appears to contain ${secret.what}.` };
  if (tokens > MAX_PUBLIC_PROMPT_TOKENS) {
    return { passed: false, reason: `Automated screening: the prompt has ${tokens} tokens; public prompts may have at most ${MAX_PUBLIC_PROMPT_TOKENS}.` };
  }
  return { passed: true };
}
