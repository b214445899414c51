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

/**
 * A value still to look at. Its path is kept as a link to its parent and spelled out only for a problem:
 * copying the path into every node made the guard quadratic in depth and most of the cost of a body of
 * many small messages.
 */
interface Pending {
  value: unknown;
  key: PropertyKey | null;
  parent: Pending | null;
  depth: number;
}

function pathOf(node: Pending): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let at: Pending | null = node; at?.parent; at = at.parent) path.push(at.key as PropertyKey);
  return path.reverse();
}

/** Pushes an array's or object's children, last first, so the first child is looked at first; null, or the problem of a key. */
function pushChildren(node: Pending, stack: Pending[], textCheck: TextCheck): InputProblem | null {
  const depth = node.depth + 1;
  if (Array.isArray(node.value)) {
    for (let i = node.value.length - 1; i >= 0; i -= 1) stack.push({ value: node.value[i], key: i, parent: node, depth });
    return null;
  }
  const object = node.value as Record<string, unknown>;
  const keys = Object.keys(object);
  for (const key of keys) {
    const what = textCheck(key);
    if (what) return { kind: 'bad_key', path: pathOf(node), what };
  }
  for (let i = keys.length - 1; i >= 0; i -= 1) {
    const key = keys[i] as string;
    stack.push({ value: object[key], key, parent: node, depth });
  }
  return null;
}

/**
 * The first problem in document order, or null. Iterative, so a body nested a million levels deep is
 * refused without recursing into it; one small record per value, so linear in the body.
 */
export function findInputProblem(root: unknown, textCheck: TextCheck = unstorable): InputProblem | null {
  const stack: Pending[] = [{ value: root, key: null, parent: null, depth: 1 }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    if (typeof next.value === 'string') {
      const what = textCheck(next.value);
      if (what) return { kind: 'bad_value', path: pathOf(next), what };
      continue;
    }
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth > MAX_JSON_DEPTH) return { kind: 'too_deep', path: pathOf(next) };
    const problem = pushChildren(next, stack, textCheck);
    if (problem) return problem;
  }
  return null;
}

/**
 * Whether a value nests arrays and objects deeper than MAX_JSON_DEPTH, the value itself at `depth`. For a
 * body whose text is cleared, depth is all there is to find: a recursion bounded by the limit, with no
 * record per value.
 */
function nestsTooDeep(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (depth > MAX_JSON_DEPTH) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) if (nestsTooDeep(value[i], depth + 1)) return true;
    return false;
  }
  const object = value as Record<string, unknown>;
  for (const key in object) if (nestsTooDeep(object[key], depth + 1)) return true;
  return false;
}

/** The problem of a request's parsed body: its depth always, its text unless noteBodyText cleared it. */
export function findBodyProblem(req: { body?: unknown }): InputProblem | null {
  if (!escapeFreeBodies.has(req)) return findInputProblem(req.body, unstorable);
  // Found again by the full walk only when there is one, for its path.
  return nestsTooDeep(req.body, 1) ? findInputProblem(req.body, alreadyChecked) : null;
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
