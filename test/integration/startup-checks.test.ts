import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/free-port';
import { createDatabase, databaseUrlFor, dropDatabase, uniqueSuffix } from '../helpers/test-database';

/**
 * `npm start` as it starts: the `.env` file it reads, and its checks of PostgreSQL, Redis and the
 * migrations, caused for real (a closed port, a database never migrated, one that does not exist, a
 * Redis that comes up late). A failed start ends non-zero with one line naming the cause and the fix,
 * and never says "started" first.
 */
const ROOT = join(__dirname, '..', '..');
const TSX_LOADER = require.resolve('tsx');
const MAIN = join(ROOT, 'src', 'main.ts');

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

function baseEnv(overrides: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SWITCHYARD_ROLE: 'single', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...overrides };
  // One Redis at REDIS_URL, even when the suite runs on a cluster.
  delete env.REDIS_CLUSTER_NODES;
  for (const [key, value] of Object.entries(overrides)) if (value === undefined) delete env[key];
  return env;
}

function startMain(env: NodeJS.ProcessEnv, cwd: string = ROOT): ChildProcess {
  return spawn(process.execPath, ['--import', TSX_LOADER, MAIN], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

function untilExit(child: ChildProcess): Promise<Exit> {
  const started = Date.now();
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started })));
}

async function closedPort(): Promise<number> {
  return freePort();
}

function expectOneLineFailure(exit: Exit, ...parts: string[]): void {
  expect(exit.code).toBe(1);
  expect(exit.stdout).not.toContain('switchyard started');
  const lines = exit.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  for (const part of parts) expect(lines[0]).toContain(part);
}

describe('start-up checks', () => {
  it('exits with one line when Redis refuses the connection', async () => {
    const port = await closedPort();
    const exit = await untilExit(startMain(baseEnv({ REDIS_URL: `redis://127.0.0.1:${port}`, STARTUP_WAIT_MS: '0', PORT: String(await freePort()) })));
    expectOneLineFailure(exit, `Redis at 127.0.0.1:${port} refused the connection`, 'start Redis, or set REDIS_URL');
  });

  it('exits with one line when PostgreSQL refuses the connection', async () => {
    const port = await closedPort();
    const exit = await untilExit(
      startMain(baseEnv({ DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/switchyard`, STARTUP_WAIT_MS: '0', PORT: String(await freePort()) })),
    );
    expectOneLineFailure(exit, `PostgreSQL at 127.0.0.1:${port} refused the connection`, 'start PostgreSQL, or set DATABASE_URL');
  });

  it('names the migration command for a database that does not exist, or was never migrated', async () => {
    const missing = `switchyard_missing_${uniqueSuffix()}`;
    const absent = await untilExit(startMain(baseEnv({ DATABASE_URL: databaseUrlFor(missing), STARTUP_WAIT_MS: '0', PORT: String(await freePort()) })));
    expectOneLineFailure(absent, `the database "${missing}"`, 'does not exist', 'run `npm run db:migrate`');

    const empty = `switchyard_empty_${uniqueSuffix()}`;
    await createDatabase(empty);
    try {
      const unmigrated = await untilExit(startMain(baseEnv({ DATABASE_URL: databaseUrlFor(empty), STARTUP_WAIT_MS: '0', PORT: String(await freePort()) })));
      expectOneLineFailure(unmigrated, `the database "${empty}" is not migrated`, 'run `npm run db:migrate`');
    } finally {
      await dropDatabase(empty);
    }
  });

  it('waits at most STARTUP_WAIT_MS, and says what it waits for', async () => {
    const port = await closedPort();
    const exit = await untilExit(startMain(baseEnv({ REDIS_URL: `redis://127.0.0.1:${port}`, STARTUP_WAIT_MS: '2000', PORT: String(await freePort()) })));
    expectOneLineFailure(exit, `Redis at 127.0.0.1:${port} refused the connection`, '(waited 2 s, STARTUP_WAIT_MS)');
    expect(exit.stdout).toContain(`waiting for Redis at 127.0.0.1:${port} refused the connection`);
    expect(exit.ms).toBeLessThan(20_000);
  });

  it('starts once a late Redis comes up within the wait', async () => {
    const redisPort = await closedPort();
    const apiPort = await freePort();
    const child = startMain(
      baseEnv({ REDIS_URL: `redis://127.0.0.1:${redisPort}`, STARTUP_WAIT_MS: '60000', PORT: String(apiPort), REDIS_PREFIX: `sytest_late_${uniqueSuffix()}` }),
    );
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    let redis: ChildProcess | null = null;
    try {
      await waitFor(() => stdout.includes('waiting for Redis'), 30_000);
      expect(stdout).not.toContain('switchyard started');
      redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      await waitFor(() => stdout.includes('switchyard started'), 60_000);
      const ready = await fetch(`http://127.0.0.1:${apiPort}/readyz`);
      expect(ready.status).toBe(200);
    } finally {
      child.kill('SIGKILL');
      redis?.kill('SIGKILL');
    }
  }, 120_000);

  describe('.env', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'switchyard-env-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('is read from the folder the process starts in, and the environment wins over it', async () => {
      const [filePort, envPort] = [await closedPort(), await closedPort()];
      writeFileSync(join(dir, '.env'), `# a newcomer's copy of .env.example\nREDIS_URL=redis://127.0.0.1:${filePort}\nSTARTUP_WAIT_MS=0\n`);

      const fromFile = await untilExit(startMain(baseEnv({ REDIS_URL: undefined, STARTUP_WAIT_MS: undefined, PORT: String(await freePort()) }), dir));
      expectOneLineFailure(fromFile, `Redis at 127.0.0.1:${filePort} refused the connection`);

      const fromEnv = await untilExit(
        startMain(baseEnv({ REDIS_URL: `redis://127.0.0.1:${envPort}`, STARTUP_WAIT_MS: undefined, PORT: String(await freePort()) }), dir),
      );
      expectOneLineFailure(fromEnv, `Redis at 127.0.0.1:${envPort} refused the connection`);
    });

    it('is read by db:migrate, db:seed and the CLI too', async () => {
      const port = await closedPort();
      writeFileSync(join(dir, '.env'), `DATABASE_URL=postgresql://postgres@127.0.0.1:${port}/switchyard\n`);
      const env = baseEnv({ DATABASE_URL: undefined });
      for (const entry of [['scripts/db-migrate.ts'], ['prisma/seed.ts'], ['src/cli/main.ts', 'orgs', 'list']]) {
        const [script = '', ...args] = entry;
        const child = spawn(process.execPath, ['--import', TSX_LOADER, join(ROOT, script), ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
        const exit = await untilExit(child);
        expect(exit.code).not.toBe(0);
        expect(exit.stderr).toContain(`127.0.0.1:${port}`);
      }
    });
  });
});

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
