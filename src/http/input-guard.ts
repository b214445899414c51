import { ApiError } from '../errors/api-error';
import { paramPath } from '../errors/param-path';

/**
 * Deepest nesting of arrays and objects a request body may have (the body itself is level 1). Code that
 * walks a request recursively (validation, masking, token counting) then never runs out of stack;
 * 64 is far beyond any real message list or JSON schema.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Text PostgreSQL cannot store: NUL (refused by text and jsonb alike), and a UTF-16 surrogate without
 * its pair (JSON allows the escape `\ud800`; jsonb refuses it, text would store U+FFFD instead).
 */
const UNPAIRED_SURROGATE = /\p{Cs}/u;

/** What makes a text unstorable, or null. */
type TextCheck = (text: string) => string | null;

const unstorable: TextCheck = (text) => {
  if (text.includes('\u0000')) return 'the NUL character (U+0000)';
  if (UNPAIRED_SURROGATE.test(text)) return 'an unpaired UTF-16 surrogate (\\ud800-\\udfff)';
  return null;
};

/** For a body whose text was already found free of both (see noteBodyText). */
const alreadyChecked: TextCheck = () => null;

/**
 * Requests whose JSON body text holds no `\u` escape. JSON can carry NUL or a lone surrogate only as such
 * an escape (a raw control character is invalid JSON, and bytes that are not UTF-8 decode to U+FFFD), so
 * the strings of such a body need no scan: one byte search instead of a regex over every string, which
 * was most of the guard's cost (about 5x the parse and validation of a 100 KB chat).
 */
const escapeFreeBodies = new WeakSet<object>();

/** body-parser's `verify` hook: notes a UTF-8 body without escapes; any other charset is scanned in full. */
export function noteBodyText(req: object, raw: Buffer, encoding: string | null): void {
  if (encoding === 'utf-8' && !raw.includes('\\u')) escapeFreeBodies.add(req);
}

/** What is wrong with a decoded request value, and where. */
export type InputProblem =
  | { kind: 'bad_value'; path: PropertyKey[]; what: string }
  /** `path` is the object holding the key. */
  | { kind: 'bad_key'; path: PropertyKey[]; what: string }
  | { kind: 'too_deep'; path: PropertyKey[] };

interface Pending {
  value: unknown;
  path: PropertyKey[];
  depth: number;
}

function childrenOf({ value, path, depth }: Pending, textCheck: TextCheck): Pending[] | InputProblem {
  if (depth > MAX_JSON_DEPTH) return { kind: 'too_deep', path };
  const entries: [PropertyKey, unknown][] = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value as object);
  const children: Pending[] = [];
  for (const [key, child] of entries) {
    const what = typeof key === 'string' ? textCheck(key) : null;
    if (what) return { kind: 'bad_key', path, what };
    children.push({ value: child, path: [...path, key], depth: depth + 1 });
  }
  return children;
}

/**
 * The first problem in document order, or null. Iterative, so a body nested a million levels deep is
 * refused without recursing into it.
 */
export function findInputProblem(root: unknown, textCheck: TextCheck = unstorable): InputProblem | null {
  const stack: Pending[] = [{ value: root, path: [], depth: 1 }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    if (typeof next.value === 'string') {
      const what = textCheck(next.value);
      if (what) return { kind: 'bad_value', path: next.path, what };
      continue;
    }
    if (typeof next.value !== 'object' || next.value === null) continue;
    const children = childrenOf(next, textCheck);
    if (!Array.isArray(children)) return children;
    // Pushed last first, so the first child is looked at first; a loop, as a spread of a huge array overflows.
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i] as Pending);
  }
  return null;
}

/** The problem of a request's parsed body: its depth always, its text unless noteBodyText cleared it. */
export function findBodyProblem(req: { body?: unknown }): InputProblem | null {
  return findInputProblem(req.body, escapeFreeBodies.has(req) ? alreadyChecked : unstorable);
}

/** The 400 for a problem in the body or the query; `where` names the whole input when the path is empty. */
export function problemError(problem: InputProblem, where: 'body' | 'query'): ApiError {
  const param = paramPath(problem.path) || where;
  switch (problem.kind) {
    case 'bad_value':
      return new ApiError('invalid_value', `Invalid value for '${param}': ${problem.what} is not accepted.`, param);
    case 'bad_key':
      return new ApiError('invalid_value', `Invalid field name in '${param}': ${problem.what} is not accepted.`, param);
    case 'too_deep':
      return new ApiError('invalid_value', `The ${where} is nested deeper than ${MAX_JSON_DEPTH} levels.`, where);
  }
}
