import { execFile } from 'node:child_process';
import path from 'node:path';

/**
 * npm as a newcomer runs it from the repository: its errors are shown (no `loglevel=silent` hiding
 * them), and `npm run -s cli -- ... --json` still prints only the JSON (`-s` keeps npm's "> script"
 * banner off stdout).
 */

const ROOT = path.resolve(__dirname, '../..');
jest.setTimeout(120_000);

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function npm(args: string[]): Promise<Ran> {
  return new Promise((resolve, reject) => {
    execFile('npm', args, { cwd: ROOT, env: process.env, timeout: 90_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

describe('npm scripts', () => {
  it('`npm run <unknown>` says what is wrong on stderr and exits non-zero', async () => {
    const run = await npm(['run', 'no-such-script']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('Missing script: "no-such-script"');
  });

  it('`npm run -s cli -- orgs list --json` prints only JSON on stdout', async () => {
    const run = await npm(['run', '-s', 'cli', '--', 'orgs', 'list', '--json']);
    expect(run.code).toBe(0);
    expect(() => JSON.parse(run.stdout)).not.toThrow();
    expect(JSON.parse(run.stdout)).toMatchObject({ data: expect.any(Array) });
  });
});
