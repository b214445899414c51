import { size, type Fault } from '../fault';
import { trafficRow } from '../row';
import { runCount, sleep } from '../traffic';

/** Streams with this many ms between chunks, so they are in flight (headers sent, log id known) when the kill comes. */
const CHUNK_DELAY_MS = 250;

/**
 * SIGKILL of one of the two API processes while streams it relays are in flight. Its clients lose their
 * connection (not answered: expected), but their jobs go on in the workers: every request that had
 * received `x-switchyard-log-id` must still get its log. The API is then restarted on its port and a
 * second wave goes to both processes.
 */
export const apiKill: Fault = {
  name: 'API kill -9',
  summary: 'Slow streams in flight through two API processes; one API gets SIGKILL, then restarts and serves a second wave.',
  run: async (ctx) => {
    const space = await ctx.createSpace({ row: 'api kill', models: [{ role: 'drip', quality: 0.9 }] });
    const requests = size(ctx, 16, 8);
    const drip = space.upstreamName.drip ?? '';
    ctx.upstream.script(
      drip,
      Array.from({ length: requests * 4 }, () => ({ kind: 'ok' as const, chunkDelayMs: CHUNK_DELAY_MS })),
    );
    const client = ctx.client(space);
    const text = 'Say hello to the fault suite while one API process is killed under it.';
    const tags = Array.from({ length: requests }, (_, i) => `api-kill-${i}`);
    const inFlight = runCount(requests, requests, (i) => client.complete(tags[i] ?? '', { stream: true, text, timeoutMs: 30_000 }));
    const deadline = Date.now() + 10_000;
    while (ctx.upstream.callsFor(tags) < requests && Date.now() < deadline) await sleep(20);
    await sleep(4 * CHUNK_DELAY_MS);
    const victim = ctx.stack.apis[1];
    if (!victim) throw new Error('no second API process to kill');
    const victimUrl = ctx.stack.apiUrl(victim);
    const killedAt = await ctx.stack.kill9(victim);
    const first = await inFlight;
    const restarted = await ctx.stack.replace(victim);
    const second = await runCount(Math.ceil(requests / 2), 4, (i) => client.complete(`api-kill-after-${i}`, { timeoutMs: 30_000 }));
    const completions = [...first, ...second];
    const toVictim = first.filter((c) => c.api === victimUrl);
    return trafficRow('API kill -9', completions, {
      lostLogs: await ctx.lostLogs(
        completions.map((c) => c.logId),
        15_000,
      ),
      callsPerRequest: ctx.upstream.callsFor(completions.map((c) => c.tag)) / completions.length,
      other: {
        'in flight at the killed API': toVictim.length,
        'of those with a log id': toVictim.filter((c) => c.logId !== null).length,
        'restart ready s': Number(((restarted.readyAt - killedAt) / 1000).toFixed(1)),
      },
      notes: [`${requests} streams (${CHUNK_DELAY_MS} ms between chunks) over two API processes, then ${second.length} JSON requests after the restart`],
    });
  },
};
