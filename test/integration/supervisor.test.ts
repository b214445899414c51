import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import OpenAI from 'openai';
import { eventually, isolatedSpace, sleep } from '../helpers/completion-fixtures';
import type { CompletionsHarness } from '../helpers/completions';
import { createTestContext, type TestContext } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';
import { freePort } from '../helpers/free-port';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * `npm start` as a newcomer runs it (SWITCHYARD_ROLE unset = `all`), from source, with two API and two
 * worker processes: completions flow, a child killed with SIGKILL is replaced, SIGTERM stops everything.
 */
const ROOT = join(__dirname, '..', '..');
const prefix = `${process.env.REDIS_PREFIX ?? 'sytest'}_${uniqueSuffix()}`;

interface Started {
  role: string;
  pid: number;
}

let sim: Simulator;
let ctx: TestContext;
let supervisor: ChildProcess | null = null;
const started: Started[] = [];

function startSupervisorProcess(port: number): ChildProcess {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_PREFIX: prefix,
    PORT: String(port),
    HOST: '127.0.0.1',
    API_PROCESSES: '2',
    WORKER_PROCESSES: '2',
    OPENAI_API_KEY: 'sim-key',
    OPENAI_BASE_URL: sim.baseUrls.openai,
    LOG_LEVEL: 'info',
    SHUTDOWN_GRACE_MS: '5000',
  };
  delete env.SWITCHYARD_ROLE;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  // Every process logs JSON lines to the same stdout; the supervisor's "process started" lines name each child.
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    const entry = JSON.parse(line) as { msg?: string; role?: string; pid?: number };
    if (entry.msg === 'process started' && entry.role && entry.pid) started.push({ role: entry.role, pid: entry.pid });
  });
  return child;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  sim = await startSimulator();
  ctx = createTestContext({ redisPrefix: prefix });
});
afterAll(async () => {
  if (supervisor && supervisor.exitCode === null) supervisor.kill('SIGKILL');
  for (const { pid } of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
  await ctx.close();
  await sim.close();
});

describe('npm start (the supervisor)', () => {
  it('runs 2 API and 2 worker processes, replaces one killed with SIGKILL, and drains all on SIGTERM', async () => {
    const harness = { ...ctx, workers: { close: async () => undefined } } as CompletionsHarness;
    const { tenant } = await isolatedSpace(harness, { models: [{ name: 'quick' }] });
    const port = await freePort();
    supervisor = startSupervisorProcess(port);
    const client = new OpenAI({ apiKey: tenant.api_key, baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });

    // Four children start from source at once: on a loaded 2-core machine that can take most of a minute.
    await eventually(async () => ((await ctx.services.queues.completions.getWorkersCount()) >= 2 ? true : null), 90_000);
    await eventually(
      async () =>
        (await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.ok,
          () => false,
        )) || null,
      90_000,
    );
    expect(started.map((s) => s.role).sort()).toEqual(['api', 'api', 'workers', 'workers']);
    const first = await Promise.all(
      Array.from({ length: 8 }, () => client.chat.completions.create({ model: 'quick', messages: [{ role: 'user', content: 'hello' }] })),
    );
    expect(first.every((c) => c.choices[0]?.message.content)).toBe(true);

    const victim = started.find((s) => s.role === 'workers');
    if (!victim) throw new Error('no worker process started');
    process.kill(victim.pid, 'SIGKILL');
    await eventually(() => (started.filter((s) => s.role === 'workers').length === 3 ? true : null));
    const apiVictim = started.find((s) => s.role === 'api');
    if (!apiVictim) throw new Error('no API process started');
    process.kill(apiVictim.pid, 'SIGKILL');
    await eventually(() => (started.filter((s) => s.role === 'api').length === 3 ? true : null));
    await sleep(200);
    await eventually(async () => ((await ctx.services.queues.completions.getWorkersCount()) >= 2 ? true : null), 90_000);
    const stream = await client.chat.completions.create({ model: 'quick', stream: true, messages: [{ role: 'user', content: 'after the kill' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text.length).toBeGreaterThan(0);
    const after = await Promise.all(
      Array.from({ length: 8 }, () => client.chat.completions.create({ model: 'quick', messages: [{ role: 'user', content: 'again' }] })),
    );
    expect(after).toHaveLength(8);

    const exited = new Promise<number | null>((resolve) => supervisor?.once('exit', (code) => resolve(code)));
    supervisor.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(started.filter((s) => alive(s.pid))).toEqual([]);
  }, 300_000);
});
