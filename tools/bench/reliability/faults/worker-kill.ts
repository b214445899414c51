import { size, type Fault } from '../fault';
import { trafficRow } from '../row';
import { runCount, sleep } from '../traffic';

/** How long the model takes to answer, in ms: the job's own duration. */
const JOB_MS = 3000;

/**
 * SIGKILL of one of the two worker processes while every request is being answered (3 s answers), and a
 * replacement started at once. Jobs the dead worker held must be run again (their upstream call was cut:
 * the simulator saw the connection break); jobs the other worker held must not be run twice. "Wait after
 * kill" is how long a held job's answer came after the kill, beyond the job's own 3 s.
 */
export const workerKill: Fault = {
  name: 'worker kill -9',
  summary: 'Requests in flight (3 s answers) over two worker processes; one worker gets SIGKILL and a replacement starts at once.',
  run: async (ctx) => {
    const space = await ctx.createSpace({ row: 'worker kill', models: [{ role: 'slow', quality: 0.9 }] });
    const requests = size(ctx, 12, 6);
    // BullMQ finds a stalled job within its lock duration plus its check interval (30 s each by default).
    const timeoutMs = 90_000;
    const slow = space.upstreamName.slow ?? '';
    ctx.upstream.script(
      slow,
      Array.from({ length: requests * 4 }, () => ({ kind: 'ok' as const, delayMs: JOB_MS })),
    );
    const client = ctx.client(space);
    const tags = Array.from({ length: requests }, (_, i) => `worker-kill-${i}`);
    const inFlight = runCount(requests, requests, (i) => client.complete(tags[i] ?? '', { timeoutMs }));
    // Kill once every request is at the upstream, i.e. held by a worker.
    const deadline = Date.now() + 10_000;
    while (ctx.upstream.callsFor(tags) < requests && Date.now() < deadline) await sleep(20);
    await sleep(300);
    const victim = ctx.stack.workers[0];
    if (!victim) throw new Error('no worker process to kill');
    const killedAt = await ctx.stack.kill9(victim);
    const replacement = await ctx.stack.replace(victim);
    const completions = await inFlight;

    const byTag = ctx.upstream.callsByTag();
    const held = completions.filter((c) => {
      const calls = byTag.get(c.tag);
      return calls !== undefined && calls.completed < calls.calls;
    });
    const waits = held.map((c) => (c.endedAt - killedAt - JOB_MS) / 1000);
    const duplicates = completions.reduce((sum, c) => sum + Math.max(0, (byTag.get(c.tag)?.completed ?? 0) - 1), 0);
    const unanswered = held.filter((c) => !c.answered).length;
    return trafficRow('worker kill -9', completions, {
      lostLogs: await ctx.lostLogs(
        completions.map((c) => c.logId),
        15_000,
      ),
      callsPerRequest: ctx.upstream.callsFor(tags) / requests,
      other: {
        'jobs held by the killed worker': held.length,
        'max wait after kill s': Number(Math.max(0, ...waits).toFixed(1)),
        'duplicate upstream answers': duplicates,
        'replacement ready s': Number(((replacement.readyAt - killedAt) / 1000).toFixed(1)),
      },
      notes: [
        `${requests} requests in flight, each answered by the model after ${JOB_MS / 1000} s; client patience ${timeoutMs / 1000} s`,
        ...(unanswered > 0 ? [`${unanswered} held job(s) not answered within the patience: their wait is a lower bound`] : []),
      ],
    });
  },
};
