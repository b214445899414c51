import { STATUS_CODES } from 'node:http';
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../../errors/error-codes';
import type { RouteMeta } from '../route';
import { COMPONENT_SCHEMAS } from './json-schema';
import type { Reference, ResponseObject } from './openapi-types';

export const ERROR_SCHEMA = 'Error';

const CODES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];
const TYPES = [...new Set(Object.values(ERROR_CODES).map((entry) => entry.type))] as [string, ...string[]];

/** The one error body of the API, as the error handler writes it (see `ApiError.toBody`). */
export const errorBodySchema = z.object({
  error: z.object({
    message: z.string().describe('What went wrong, for a person to read.'),
    type: z.enum(TYPES).describe('OpenAI-style error family.'),
    code: z.enum(CODES).describe('Stable machine-readable code; see the table in the API description.'),
    param: z.string().nullable().describe('The field, parameter or header the error is about, or null.'),
  }),
});

/** Every error a route can answer with: the ones every route shares, then what its definition adds. */
export function errorStatusesOf(meta: RouteMeta): number[] {
  const statuses = new Set<number>([400, 401, 413, 500, ...(meta.errors ?? [])]);
  if (meta.permission) statuses.add(403);
  if (meta.body || meta.multipartBody) statuses.add(415);
  // A malformed id in the path answers 404, exactly like an unknown one.
  if (meta.params || meta.path.includes('{')) statuses.add(404);
  return [...statuses].sort((a, b) => a - b);
}

/** `413` → `PayloadTooLarge`: the shared response's name under `components.responses`. */
export function errorResponseName(status: number): string {
  const words = (STATUS_CODES[status] ?? `Status ${status}`).replace(/[^A-Za-z0-9 ]/g, '').split(' ');
  return words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
}

export function errorResponseRef(status: number): Reference {
  return { $ref: `#/components/responses/${errorResponseName(status)}` };
}

function codesFor(status: number): ErrorCode[] {
  return CODES.filter((code) => ERROR_CODES[code].status === status);
}

function errorResponse(status: number): ResponseObject {
  const codes = codesFor(status);
  const reason = STATUS_CODES[status] ?? `Status ${status}`;
  const list = codes.length ? ` Codes: ${codes.map((code) => `\`${code}\``).join(', ')}.` : '';
  return {
    description: `${reason}.${list}`,
    content: { 'application/json': { schema: { $ref: `${COMPONENT_SCHEMAS}${ERROR_SCHEMA}` } } },
  };
}

/** One shared response per error status: every status of the code table, plus any other a route names. */
export function errorResponses(extraStatuses: Iterable<number>): Record<string, ResponseObject> {
  const statuses = new Set<number>([...Object.values(ERROR_CODES).map((entry) => entry.status), ...extraStatuses]);
  const sorted = [...statuses].sort((a, b) => a - b);
  return Object.fromEntries(sorted.map((status) => [errorResponseName(status), errorResponse(status)]));
}
