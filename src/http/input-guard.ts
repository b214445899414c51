import { ApiError } from '../errors/api-error';
import { paramPath } from '../errors/param-path';

/**
 * Deepest nesting of arrays and objects a request body may have (the body itself is level 1). Code that
 * walks a request recursively (validation, masking, token counting) then never runs out of stack;
 * 64 is far beyond any real message list or JSON schema.
 */
export const MAX_JSON_DEPTH = 64;

const NUL = '\u0000';

/** What is wrong with a decoded request value, and where. */
export type InputProblem =
  | { kind: 'nul_in_value'; path: PropertyKey[] }
  /** `path` is the object holding the key. */
  | { kind: 'nul_in_key'; path: PropertyKey[] }
  | { kind: 'too_deep'; path: PropertyKey[] };

interface Pending {
  value: unknown;
  path: PropertyKey[];
  depth: number;
}

function childrenOf({ value, path, depth }: Pending): Pending[] | InputProblem {
  if (depth > MAX_JSON_DEPTH) return { kind: 'too_deep', path };
  const entries: [PropertyKey, unknown][] = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value as object);
  const children: Pending[] = [];
  for (const [key, child] of entries) {
    if (typeof key === 'string' && key.includes(NUL)) return { kind: 'nul_in_key', path };
    children.push({ value: child, path: [...path, key], depth: depth + 1 });
  }
  return children;
}

/**
 * The first problem in document order, or null. Iterative, so a body nested a million levels deep is
 * refused without recursing into it.
 */
export function findInputProblem(root: unknown): InputProblem | null {
  const stack: Pending[] = [{ value: root, path: [], depth: 1 }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    if (typeof next.value === 'string') {
      if (next.value.includes(NUL)) return { kind: 'nul_in_value', path: next.path };
      continue;
    }
    if (typeof next.value !== 'object' || next.value === null) continue;
    const children = childrenOf(next);
    if (!Array.isArray(children)) return children;
    // Pushed last first, so the first child is looked at first; a loop, as a spread of a huge array overflows.
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i] as Pending);
  }
  return null;
}

/** The 400 for a problem in the body or the query; `where` names the whole input when the path is empty. */
export function problemError(problem: InputProblem, where: 'body' | 'query'): ApiError {
  const param = paramPath(problem.path) || where;
  switch (problem.kind) {
    case 'nul_in_value':
      return new ApiError('invalid_value', `Invalid value for '${param}': the NUL character (U+0000) is not accepted.`, param);
    case 'nul_in_key':
      return new ApiError('invalid_value', `Invalid field name in '${param}': the NUL character (U+0000) is not accepted.`, param);
    case 'too_deep':
      return new ApiError('invalid_value', `The ${where} is nested deeper than ${MAX_JSON_DEPTH} levels.`, where);
  }
}
