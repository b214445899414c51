import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import request from 'supertest';
import { eventually, logsOf } from '../helpers/completion-fixtures';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import type { Tenant } from '../helpers/test-context';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * `logs tail --follow` run as an operator runs it (`npm run -s cli -- logs tail ...`, stopped with Ctrl-C)
 * against a service the test starts: the newest logs first, then each new log once, in order, and none
 * of the old ones replayed, including a log that commits after a later-stamped one.
 */

const ROOT = path.resolve(__dirname, '../..');
jest.setTimeout(180_000);

let sim: Simulator;
let h: CompletionsHarness;
let tenant: Tenant;

beforeAll(async () => {
  sim = await startSimulator();
  h = startCompletionsHarness({ providers: simulatedProviders(sim) });
  tenant = await h.tenant();
});
afterAll(async () => {
  await h.close();
  await sim.close();
});

/** One completion, its log committed: answers the log's id. */
async function completed(content: string): Promise<string> {
  const res = await request(h.app)
    .post('/v1/chat/completions')
    .set(tenant.auth)
    .send({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content }] });
  expect(res.status).toBe(200);
  await logsOf(h, res.body.id);
  return res.body.id as string;
}

interface Follower {
  ids(): string[];
  /** Ctrl-C, as a terminal sends it to the foreground process group; answers how npm exited. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

function follow(args: string[]): Follower {
  let stdout = '';
  let stderr = '';
  const child: ChildProcess = spawn('npm', ['run', '-s', 'cli', '--', 'logs', 'tail', ...args], { cwd: ROOT, env: process.env, detached: true });
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    ids: () =>
      stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { id: string }).id),
    stop: async () => {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGINT');
      return exited;
    },
    stderr: () => stderr,
  };
}

describe('logs tail --follow', () => {
  it('prints the newest n, then only new logs, each once and in order, until Ctrl-C', async () => {
    const before: string[] = [];
    for (let i = 0; i < 5; i += 1) before.push(await completed(`before ${i}`));

    const follower = follow(['--space', tenant.app_id, '-n', '3', '--follow', '--json', '--interval-ms', '200', '--settle-ms', '500']);
    try {
      await eventually(() => (follower.ids().length >= 3 ? true : null), 60_000);
      // Several polls with no new traffic print nothing.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(follower.ids()).toEqual(before.slice(2));

      const during: string[] = [];
      for (let i = 0; i < 4; i += 1) during.push(await completed(`during ${i}`));
      // A log whose INSERT started before another's commit, and committed after it: stamped earlier, seen later.
      const late = await h.services.db.$transaction(async (tx) => {
        const row = await tx.log.create({
          data: { org_id: tenant.org_id, app_id: tenant.app_id, timestamp: BigInt(Date.now()), status_code: 200, prompt: 'committed late' },
        });
        during.push(await completed('committed meanwhile'));
        return row.id;
      });
      const expected = [...before.slice(2), ...during.slice(0, 4), late, during[4]];
      await eventually(() => (follower.ids().length >= expected.length ? true : null));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(follower.ids()).toEqual(expected);
    } finally {
      // npm ends on the SIGINT itself (as in a terminal); the command under it stops cleanly, saying nothing.
      const exit = await follower.stop();
      expect([0, 'SIGINT']).toContain(exit.code ?? exit.signal);
      expect(follower.stderr()).toBe('');
    }
  });
});
