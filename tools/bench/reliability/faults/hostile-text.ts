import { processTreeCpuMs } from '../../cpu';
import { ADVERSARIAL_TEXTS } from '../../../../test/fixtures/adversarial-text';
import type { Completion } from '../completions';
import { size, type Fault, type FaultContext } from '../fault';
import { trafficRow } from '../row';
import type { ServiceProcess } from '../service';
import { stallsSince } from '../process-logs';

/**
 * CPU linear in the input, measured where it is spent: each adversarial text of the CPU test, at 900 KiB
 * (under the 1 MiB body limit), goes through a chat completion one request at a time (its last turn asks
 * for a short answer: the input is what is measured), and every API and worker process's CPU is read
 * from /proc before and after each. A process's CPU per 100 KB, past what a tiny request costs, must
 * stay about 10 ms. Meanwhile every process's event-loop watchdog must not
 * log a stall of a second or more: that long, a worker's heartbeat lapses and its jobs are taken away.
 */

const KB = 1024;
const BODY_BYTES = 900 * KB;
/** Longest stall the row accepts from any process, in ms (JobOwners' heartbeat lapses after 1 s). */
export const STALL_LIMIT_MS = 1000;

function cpuOf(procs: ServiceProcess[]): number {
  return procs.reduce((sum, proc) => sum + (proc.child.pid ? processTreeCpuMs(proc.child.pid) : 0), 0);
}

/** CPU per ms of wall time the processes spend with no request (timers, heartbeats, the watchdog). */
interface IdleRate {
  api: number;
  worker: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function idleRate(ctx: FaultContext): Promise<IdleRate> {
  const { apis, workers } = ctx.stack;
  const before = { api: cpuOf(apis), worker: cpuOf(workers), at: performance.now() };
  await sleep(2000);
  const wall = performance.now() - before.at;
  return { api: (cpuOf(apis) - before.api) / wall, worker: (cpuOf(workers) - before.worker) / wall };
}

/** CPU the API processes and the worker processes spent on `work`, past their idle rate, in ms. */
async function measured<T>(ctx: FaultContext, idle: IdleRate, work: () => Promise<T>): Promise<{ value: T; apiMs: number; workerMs: number }> {
  const { apis, workers } = ctx.stack;
  const before = { api: cpuOf(apis), worker: cpuOf(workers), at: performance.now() };
  const value = await work();
  // The log's commit and the reply may still be running when the answer is out.
  await sleep(100);
  const wall = performance.now() - before.at;
  return { value, apiMs: cpuOf(apis) - before.api - idle.api * wall, workerMs: cpuOf(workers) - before.worker - idle.worker * wall };
}

async function hostileTextRow(ctx: FaultContext) {
  const startedAt = Date.now();
  const space = await ctx.createSpace({ row: 'hostile text', models: [{ role: 'healthy', quality: 0.9 }] });
  await ctx.db.model.updateMany({ where: { org_id: space.orgId }, data: { context_window: 10_000_000 } });
  const client = ctx.client(space);
  const repeats = size(ctx, 4, 3);
  // The hostile text is the input; the last turn asks for a short answer, as a model's answer is bounded (the simulator echoes the last turn).
  const send = (tag: string, texts: string[]) =>
    client.complete(tag, {
      text: '',
      timeoutMs: 60_000,
      extra: { messages: [...texts.map((content) => ({ role: 'user', content })), { role: 'user', content: `[rel:${tag}] Summarise the above.` }] },
    });
  const idle = await idleRate(ctx);
  const completions: Completion[] = [];
  /** Each request alone, one after another; the cheapest of them for each process kind (a garbage collection of earlier rows' work, charged to one request, is not its cost). */
  const cheapest = async (tag: string, texts: string[]) => {
    let api = Infinity;
    let worker = Infinity;
    for (let i = 0; i < repeats; i++) {
      const run = await measured(ctx, idle, () => send(`${tag}-${i}`, texts));
      completions.push(run.value);
      api = Math.min(api, run.apiMs);
      worker = Math.min(worker, run.workerMs);
    }
    return { api, worker };
  };
  const tiny = await cheapest('hostile-tiny', ['hello there']);
  const perShape: string[] = [];
  let maxApi = 0;
  let maxWorker = 0;
  for (const [shape, make] of Object.entries(ADVERSARIAL_TEXTS)) {
    ctx.say(`${shape}: ${repeats} × ${BODY_BYTES / KB} KiB`);
    const run = await cheapest(`hostile-${shape.replace(/\W+/g, '-')}`, make(BODY_BYTES));
    const per100Kb = (ms: number, tinyMs: number) => Math.max(0, (ms - tinyMs) / (BODY_BYTES / (100 * KB)));
    const api = per100Kb(run.api, tiny.api);
    const worker = per100Kb(run.worker, tiny.worker);
    maxApi = Math.max(maxApi, api);
    maxWorker = Math.max(maxWorker, worker);
    perShape.push(`${shape} ${api.toFixed(1)}/${worker.toFixed(1)}`);
  }
  const stalls = stallsSince(ctx, startedAt);
  const row = trafficRow('hostile text', completions, {
    lostLogs: await ctx.lostLogs(completions.map((c) => c.logId)),
    callsPerRequest: null,
    other: {
      'API ms per 100 KB (max)': Number(maxApi.toFixed(1)),
      'worker ms per 100 KB (max)': Number(maxWorker.toFixed(1)),
      'loop stalls logged': stalls.length,
      'longest loop stall ms': Math.max(0, ...stalls.map((s) => s.lag_ms ?? 0)),
      'stalls without a request id': stalls.filter((s) => !s.request_id).length,
    },
    notes: [`CPU per 100 KB past a tiny request, API/worker (ms): ${perShape.join('; ')}`],
  });
  return row;
}

export const hostileText: Fault = {
  name: 'hostile text',
  summary:
    "Each adversarial text of the CPU test (one 900 KiB word, random letters, base64, DNA, braces, punctuation, newlines, brackets, 30,000 tiny messages) as a chat completion, one at a time; CPU per 100 KB read from /proc for the API and worker processes, and the watchdog's stall lines.",
  run: hostileTextRow,
};
