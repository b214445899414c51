import type { Completion } from '../completions';
import { size, type Fault } from '../fault';
import { storedInFull } from '../logs';
import { keysHolding } from '../redis-residue';
import { trafficRow } from '../row';
import { send } from '../http-client';
import { runUntil, sleep } from '../traffic';

type Phase = 'before' | 'during' | 'after';

/** Text only requests sent after the switch's 200 carry: none of it may rest in Redis once their jobs end. */
const AFTER_MARKER = 'privacy-after-';

/**
 * Continuous traffic to a Space at privacy level 1 through both API processes; `PUT /v1/apps/update`
 * sets level 3 through the first one. Every request sent after that PUT answered 200 must follow level 3:
 * no log stored in full, no call to a non-GDPR model (level 3 routes only to GDPR models), and nothing
 * of it left in Redis once its job has ended. Requests sent while the PUT was in flight are left out.
 */
export const privacySwitch: Fault = {
  name: 'privacy switch',
  summary: 'Continuous traffic (8 clients, half streaming) to a level-1 Space over both API processes; the Space is switched to level 3 mid-way.',
  run: async (ctx) => {
    const space = await ctx.createSpace({
      row: 'privacy switch',
      models: [
        { role: 'open', quality: 0.9 },
        { role: 'gdpr', quality: 0.5, gdpr: true },
      ],
    });
    const beforeMs = size(ctx, 2000, 1000);
    const afterMs = size(ctx, 3000, 2000);
    const client = ctx.client(space);
    let phase: Phase = 'before';
    let switchedAt = 0;
    const phases = new Map<string, Phase>();
    const traffic = runUntil({ concurrency: 8, maxJobs: 20_000, stop: () => switchedAt > 0 && Date.now() > switchedAt + afterMs }, (i) => {
      const tag = `privacy-${phase}-${i}`;
      phases.set(tag, phase);
      return client.complete(tag, { stream: i % 2 === 1, timeoutMs: 30_000 });
    });
    await sleep(beforeMs);
    const apiUrl = ctx.stack.liveApiUrls()[0] ?? '';
    phase = 'during';
    const putSentAt = Date.now();
    const put = await send({
      method: 'PUT',
      url: `${apiUrl}/v1/apps/update`,
      headers: { authorization: `Bearer ${space.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: space.appId, policies: { privacy_level: 3 } }),
      timeoutMs: 10_000,
    });
    if (put.status !== 200) throw new Error(`the switch to level 3 answered ${put.status ?? put.error}: ${put.body.slice(0, 200)}`);
    switchedAt = Date.now();
    phase = 'after';
    const completions = await traffic;

    const inPhase = (wanted: Phase) => completions.filter((c: Completion) => phases.get(c.tag) === wanted);
    const before = inPhase('before');
    const after = inPhase('after');
    // Level-1 requests must have their log; the logs' wait also lets the last jobs end.
    const lost = await ctx.lostLogs(before.map((c) => c.logId));
    await sleep(1000);
    const byTag = ctx.upstream.callsByTag();
    const nonGdprCalls = after.reduce((sum, c) => sum + (byTag.get(c.tag)?.models.filter((m) => m === space.upstreamName.open).length ?? 0), 0);
    const residue = await keysHolding(ctx.env.redis, ctx.env.redisPrefix, AFTER_MARKER);
    return trafficRow('privacy switch', completions, {
      lostLogs: lost,
      callsPerRequest: ctx.upstream.callsFor(completions.map((c) => c.tag)) / Math.max(1, completions.length),
      other: {
        'sent after the switch': after.length,
        'stored in full after the switch': await storedInFull(
          ctx.db,
          space.appId,
          after.map((c) => c.tag),
        ),
        'non-GDPR calls after the switch': nonGdprCalls,
        'Redis keys with level-3 text': residue.length,
        'switch PUT ms': switchedAt - putSentAt,
      },
      notes: [
        `${before.length} requests before the PUT, ${completions.length - before.length - after.length} while it was in flight (left out), ${after.length} after its 200`,
        ...(residue.length > 0 ? [`level-3 text found in Redis keys such as ${residue.slice(0, 3).join(', ')}`] : []),
      ],
    });
  },
};
