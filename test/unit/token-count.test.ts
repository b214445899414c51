import { countTokens as libraryCount } from 'gpt-tokenizer';
import { bpeSegments, conversationTokens, countTokens, EXACT_CHARS, isWhitespace, MAX_STRETCH_CHARS, TARGET_SEGMENT_CHARS } from '../../src/text/token-count';

/** The token counter: exact on ordinary text, linear and close on long runs, never throwing on user text. */

const ENGLISH =
  'Switchyard routes each request to the cheapest model that will answer it well. It reads the prompt, ' +
  "counts its tokens, estimates the answer's length and scores every candidate.\n\nDon't worry: the router's " +
  'choice is logged with the reasons, so you can see why a model was picked (or refused) — “quoted” text, ' +
  'émigré café naïveté, 日本語のテキスト, emoji 🎉🚀, code `const x = {a: 1};` and URLs https://example.com/a?b=c.\n';

/** A reproducible stream of letters (a linear congruential generator), so the test's counts do not vary. */
function pseudoRandom(length: number, alphabet: string): string {
  let seed = 12345;
  let out = '';
  for (let i = 0; i < length; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    out += alphabet[(seed >>> 16) % alphabet.length];
  }
  return out;
}

function cpuMs(work: () => unknown): number {
  const start = process.cpuUsage();
  work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

describe('isWhitespace', () => {
  it("is what a regular expression's \\s matches, for every UTF-16 code unit", () => {
    const differ: number[] = [];
    for (let code = 0; code <= 0xffff; code++) if (isWhitespace(code) !== /\s/.test(String.fromCharCode(code))) differ.push(code);
    expect(differ).toEqual([]);
  });
});

describe('bpeSegments', () => {
  it('cuts only before a space that starts a word, so the pieces rebuild the text', () => {
    const text = ENGLISH.repeat(8);
    const segments = bpeSegments(text);
    expect(segments.join('')).toBe(text);
    expect(segments.length).toBeGreaterThan(1);
    for (const segment of segments.slice(1)) expect(segment).toMatch(/^ \S/u);
    for (const segment of segments) expect(segment.length).toBeLessThanOrEqual(TARGET_SEGMENT_CHARS);
  });

  it('cuts a long stretch without spaces every MAX_STRETCH_CHARS characters, keeping surrogate pairs whole', () => {
    const text = '🎉'.repeat(MAX_STRETCH_CHARS);
    const segments = bpeSegments(text);
    expect(segments.join('')).toBe(text);
    for (const segment of segments) expect(Buffer.from(segment, 'utf8').toString('utf8')).toBe(segment);
  });
});

describe('countTokens', () => {
  it('is exact on ordinary text up to EXACT_CHARS', () => {
    for (const text of [
      ENGLISH,
      ENGLISH.repeat(10),
      ENGLISH.repeat(10).slice(0, EXACT_CHARS),
      JSON.stringify({ messages: [{ role: 'user', content: ENGLISH }] }),
    ]) {
      expect(countTokens(text)).toBe(libraryCount(text));
    }
  });

  it('counts special-token text such as <|endoftext|> as text instead of throwing', () => {
    expect(countTokens('say <|endoftext|> and <|im_start|> please')).toBe(
      libraryCount('say <|endoftext|> and <|im_start|> please', { disallowedSpecial: new Set() }),
    );
  });

  it('stays within 3% of the exact count on long runs and long texts', () => {
    const cases = [
      pseudoRandom(6_000, 'abcdefghijklmnopqrstuvwxyz'),
      pseudoRandom(6_000, 'ACGT'),
      pseudoRandom(20_000, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'),
      ENGLISH.repeat(40),
    ];
    for (const text of cases) {
      const exact = libraryCount(text);
      expect(Math.abs(countTokens(text) - exact) / exact).toBeLessThan(0.03);
    }
  });

  it('costs time linear in the text on the shapes that made byte-pair merging quadratic', () => {
    const shapes = [
      (n: number) => 'a'.repeat(n),
      (n: number) => pseudoRandom(n, 'abcdefghijklmnopqrstuvwxyz'),
      (n: number) => '{}'.repeat(n / 2),
      (n: number) => '\n'.repeat(n),
      (n: number) => '!'.repeat(n),
    ];
    for (const shape of shapes) {
      const text = shape(900_000);
      countTokens(text);
      // 900 KB took minutes before; the bound is ~20× what it takes here, for a loaded machine.
      expect(cpuMs(() => countTokens(text))).toBeLessThan(250);
    }
  });
});

describe('conversationTokens', () => {
  it('adds 4 tokens a message to the exact count of short conversations', () => {
    expect(conversationTokens(['Hello', ENGLISH])).toBe(libraryCount('Hello') + libraryCount(ENGLISH) + 8);
  });

  it('keeps the per-message overhead exact for many tiny messages past EXACT_CHARS', () => {
    const texts = Array.from({ length: 20_000 }, () => 'hi');
    const tokens = conversationTokens(texts);
    expect(tokens).toBeGreaterThanOrEqual(20_000 * 5);
    expect(tokens).toBeLessThan(20_000 * 7);
  });
});
