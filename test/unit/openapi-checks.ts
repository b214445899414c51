import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Every `$ref` string in a document, with the JSON path where it sits. */
export function allRefs(value: unknown, at = '#'): { at: string; ref: string }[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => allRefs(item, `${at}/${i}`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => (key === '$ref' && typeof child === 'string' ? [{ at, ref: child }] : allRefs(child, `${at}/${key}`)));
}

/** Follows a local JSON pointer (`#/components/schemas/Prompt`); undefined when it points nowhere. */
export function resolvePointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, token) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[token] : undefined), document);
}

/** The refs that resolve to nothing; an empty list means every `$ref` of the document resolves. */
export function unresolvedRefs(document: unknown): { at: string; ref: string }[] {
  return allRefs(document).filter(({ ref }) => resolvePointer(document, ref) === undefined);
}

/**
 * Validates against the official OpenAPI 3.1 JSON Schema with @seriousme/openapi-schema-validator.
 * The package is ESM-only, which jest's CommonJS runtime cannot load, so its CLI runs in a child process.
 */
export function validateOpenApi(document: unknown): { valid: boolean; output: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchyard-openapi-'));
  try {
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const cli = require.resolve('@seriousme/openapi-schema-validator/bin/validate-api-cli.js');
    const result = spawnSync(process.execPath, [cli, file], { encoding: 'utf8' });
    return { valid: result.status === 0, output: `${result.stdout}${result.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
