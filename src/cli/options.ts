import { InvalidArgumentError, Option } from 'commander';
import { z } from 'zod';
import { ROLES, type Role } from '../domain/permissions';

/** Largest value a PostgreSQL `integer` column holds. */
const MAX_INT4 = 2_147_483_647;

const uuidSchema = z.uuid();
const roleSchema = z.enum(ROLES);

export function parseUuid(value: string): string {
  if (!uuidSchema.safeParse(value).success) throw new InvalidArgumentError('It must be a uuid.');
  return value.toLowerCase();
}

export function parseRole(value: string): Role {
  const parsed = roleSchema.safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError(`It must be one of ${ROLES.join(', ')}.`);
  return parsed.data;
}

/** Requests per minute; 0 means no limit. */
export function parseRateLimit(value: string): number {
  const limit = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(limit) || limit > MAX_INT4) {
    throw new InvalidArgumentError(`It must be a whole number from 0 to ${MAX_INT4} (requests per minute, 0 for no limit).`);
  }
  return limit;
}

/** A count or a seed: digits only. */
export function parseWholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('It must be a whole number.');
  return Number(value);
}

/** A comma-separated list of names (models), blanks dropped, at least one left. */
export function parseNameList(value: string): string[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) throw new InvalidArgumentError('It must name at least one model.');
  return names;
}

/** Names and identity-provider ids: surrounding spaces dropped, something left. */
export function parseText(value: string): string {
  const trimmed = value.trim();
  if (trimmed === '') throw new InvalidArgumentError('It must not be empty.');
  return trimmed;
}

export function uuidOption(flags: string, description: string): Option {
  return new Option(flags, description).argParser(parseUuid);
}

export function roleOption(description: string): Option {
  return new Option('--role <role>', description).choices(ROLES).argParser(parseRole);
}

export function textOption(flags: string, description: string): Option {
  return new Option(flags, description).argParser(parseText);
}

export function jsonOption(): Option {
  return new Option('--json', 'print the result as one JSON object on stdout');
}
