import { CliSession } from '../../src/cli/context';
import { runCli } from '../../src/cli/program';
import { loadConfig } from '../../src/config/load';

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command line in-process; the configuration reader says whether the database was reached for. */
async function run(
  argv: string[],
  readConfig: () => ReturnType<typeof loadConfig> = () => {
    throw new Error('the database was asked for');
  },
): Promise<Captured> {
  let stdout = '';
  let stderr = '';
  const io = { out: (text: string) => void (stdout += text), err: (text: string) => void (stderr += text) };
  const code = await runCli(argv, { session: new CliSession(readConfig), io });
  return { code, stdout, stderr };
}

const ORG = '11111111-1111-4111-8111-111111111111';
const usage = (message: string) => ({ code: 2, stdout: '', stderr: `error: ${message}\n(add --help for usage)\n` });

describe('runCli usage errors (exit 2, nothing on stdout, no database)', () => {
  it.each([
    [['bootstrap', '--space', 's'], "required option '--org <name>' not specified"],
    [['bootstrap', '--org', '', '--space', 's'], "option '--org <name>' argument '' is invalid. It must not be empty."],
    [
      ['bootstrap', '--org', 'o', '--space', 's', '--rate-limit', 'fast'],
      "option '--rate-limit <n>' argument 'fast' is invalid. It must be a whole number from 0 to 2147483647 (requests per minute, 0 for no limit).",
    ],
    [['keys', 'create', '--org-id', ORG, '--role', 'god'], "option '--role <role>' argument 'god' is invalid. It must be one of owner, admin, member, viewer."],
    [['keys', 'create', '--org-id', ORG, '--app-id', '42'], "option '--app-id <uuid>' argument '42' is invalid. It must be a uuid."],
    [['keys', 'list'], "required option '--org-id <uuid>' not specified"],
    [['keys', 'revoke', '--org-id', ORG], "required option '--key-id <uuid>' not specified"],
    [['keys', 'revoke', '--org-id', ORG, '--key-id', 'k'], "option '--key-id <uuid>' argument 'k' is invalid. It must be a uuid."],
    [['spaces', 'create', '--org-id', ORG, '--name', 'n', '--sandbox'], "unknown option '--sandbox'"],
    [['spaces', 'list', '--org-id', ORG, 'extra'], "too many arguments for 'list'. Expected 0 arguments but got 1."],
    [['spaces', 'delete'], "unknown command 'delete'"],
    [['frobnicate'], "unknown command 'frobnicate'"],
  ])('%j', async (argv, message) => {
    expect(await run(argv)).toEqual(usage(message));
  });

  it('prints the group help on stderr when a group is called without a command', async () => {
    const result = await run(['keys']);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain('Usage: cli keys [options] [command]');
  });
});

describe('runCli --help', () => {
  it.each([
    [[], 'Usage: cli [options] [command]', ['bootstrap', 'keys', 'spaces']],
    [
      ['bootstrap'],
      'Usage: cli bootstrap [options]',
      ['--org <name>', '--space <name>', '--service-owner', '--idp-id <id>', '--role <role>', '--rate-limit <n>', '--json'],
    ],
    [['keys'], 'Usage: cli keys [options] [command]', ['create', 'list', 'revoke']],
    [
      ['keys', 'create'],
      'Usage: cli keys create [options]',
      ['--org-id <uuid>', '--idp-id <id>', '--role <role>', '--app-id <uuid>', '--name <name>', '--json'],
    ],
    [['keys', 'list'], 'Usage: cli keys list [options]', ['--org-id <uuid>', '--json']],
    [['keys', 'revoke'], 'Usage: cli keys revoke [options]', ['--org-id <uuid>', '--key-id <uuid>', '--json']],
    [['spaces'], 'Usage: cli spaces [options] [command]', ['create', 'list']],
    [['spaces', 'create'], 'Usage: cli spaces create [options]', ['--org-id <uuid>', '--name <name>', '--idp-id <id>', '--json']],
    [['spaces', 'list'], 'Usage: cli spaces list [options]', ['--org-id <uuid>', '--json']],
  ])('%j --help exits 0 with usage on stdout', async (argv, heading, mentions) => {
    const result = await run([...argv, '--help']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.startsWith(heading)).toBe(true);
    for (const text of mentions) expect(result.stdout).toContain(text);
  });
});

describe('runCli runtime failures', () => {
  it('exits 1 with one line when the configuration is invalid', async () => {
    const result = await run(['spaces', 'list', '--org-id', ORG], () => loadConfig({ DATABASE_URL: 'mysql://db' }));
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'error: Invalid configuration: DATABASE_URL: must be a postgresql:// URL\n' });
  });
});
