import type { z } from 'zod';
import { ApiError } from './api-error';
import { paramPath } from './param-path';

/** Dotted path of a zod issue, prefixed with where the value came from (`body`, `query`, `path`). */
function paramOf(issue: z.core.$ZodIssue, prefix: string | null): string | null {
  const keys = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
  const path = paramPath(keys);
  if (path === '') return prefix;
  return path;
}

/** Zod reports an absent value as an invalid_type issue; its default message ends in "received undefined". */
function isMissing(issue: z.core.$ZodIssue): boolean {
  if (issue.code !== 'invalid_type') return false;
  return 'input' in issue ? issue.input === undefined : issue.message.endsWith('received undefined');
}

function messageOf(issue: z.core.$ZodIssue, param: string | null): string {
  const where = param ? `'${param}'` : 'the request body';
  switch (issue.code) {
    case 'unrecognized_keys':
      return `Unrecognized field ${where}.`;
    case 'invalid_type':
      if (isMissing(issue)) return `Missing required field ${where}.`;
      return `Invalid type for ${where}: expected ${issue.expected}.`;
    default:
      return `Invalid value for ${where}: ${issue.message}.`;
  }
}

/** Turns the first zod issue into a 400 that names the offending field. */
export function apiErrorFromZod(error: z.ZodError, prefix: string | null = null): ApiError {
  const issue = error.issues[0];
  if (!issue) return new ApiError('invalid_request', 'Invalid request.', prefix);
  const param = paramOf(issue, prefix);
  const code = issue.code === 'unrecognized_keys' ? 'unknown_field' : isMissing(issue) ? 'missing_field' : 'invalid_value';
  return new ApiError(code, messageOf(issue, param), param);
}
