import { CommanderError, InvalidArgumentError } from 'commander';
import { describeFailure, exitCodeFor } from '../../src/cli/failure';
import { ConfigError } from '../../src/config/load';
import { ApiError } from '../../src/errors/api-error';

/** Prisma's shape: a code frame first, the cause on the last line. */
const prismaLike = new Error(
  [
    '',
    'Invalid `tx.organization.findUnique()` invocation in',
    '/x/tenancy.ts:37:28',
    '',
    '→ 37   return tx.organization.findUnique(',
    "Can't reach database server at 127.0.0.1:1",
    '',
  ].join('\n'),
);

describe('exitCodeFor', () => {
  it.each([
    ['help shown on request', new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'), 0],
    ['an unknown option', new CommanderError(1, 'commander.unknownOption', "error: unknown option '--x'"), 2],
    ['an invalid argument', new InvalidArgumentError('It must be a uuid.'), 2],
    ['an unknown id', new ApiError('not_found', 'Organization x not found.'), 2],
    ['an already revoked key', new ApiError('conflict', 'Key x was already revoked.'), 2],
    ['a server-side ApiError', new ApiError('service_unavailable', 'down'), 1],
    ['bad configuration', new ConfigError(['DATABASE_URL: must be a postgresql:// URL']), 1],
    ['a database failure', prismaLike, 1],
    ['a thrown string', 'boom', 1],
  ])('%s → %d', (_case, err, code) => {
    expect(exitCodeFor(err)).toBe(code);
  });
});

describe('describeFailure', () => {
  it('leaves commander errors to commander, which has already written them', () => {
    expect(describeFailure(new CommanderError(1, 'commander.unknownOption', 'x'), true)).toBeNull();
  });

  it('keeps only the cause of a multi-line database error', () => {
    expect(describeFailure(prismaLike, false)).toBe("error: Can't reach database server at 127.0.0.1:1\n");
  });

  it('adds the stack only when verbose', () => {
    const text = describeFailure(prismaLike, true) ?? '';
    expect(text.startsWith("error: Can't reach database server at 127.0.0.1:1\n")).toBe(true);
    expect(text).toContain('cli-failure.test.ts');
  });

  it('never adds a stack to an expected error', () => {
    expect(describeFailure(new ApiError('not_found', 'Key k not found in organization o.'), true)).toBe('error: Key k not found in organization o.\n');
  });

  it('puts every configuration issue on one line', () => {
    const err = new ConfigError(['DATABASE_URL: must be a postgresql:// URL', 'PORT: too big']);
    expect(describeFailure(err, false)).toBe('error: Invalid configuration: DATABASE_URL: must be a postgresql:// URL; PORT: too big\n');
  });
});
