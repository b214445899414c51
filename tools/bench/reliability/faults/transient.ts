import type { Behaviour } from '../../../../test/simulator/behaviour';
import { size, type Fault } from '../fault';
import { trafficRow } from '../row';
import { runCount } from '../traffic';
import { callsPerRequest, streams, tagPrefix } from './upstream-fault';

/**
 * A fault of each request rather than of a model: the first call of every request fails, whichever model
 * it reaches, and its next call answers. The models fail half their calls, which opens their breakers and
 * spends their retry budgets; a request must still get the one retry that answers it, and no more.
 */
function transient(name: string, fault: Behaviour, what: string): Fault {
  return {
    name,
    summary: `The first call of every request ${what}, whichever model it reaches; its next call answers. Two models, failover chain on; half the requests stream.`,
    run: async (ctx) => {
      const space = await ctx.createSpace({
        row: name,
        models: [
          { role: 'primary', quality: 0.9 },
          { role: 'fallback', quality: 0.5 },
        ],
        chain: ['fallback'],
      });
      const prefix = tagPrefix(name);
      ctx.upstream.failFirstCallOfEach(`${prefix}-`, fault);
      const requests = size(ctx, 50, 24);
      const timeoutMs = size(ctx, 30_000, 20_000);
      const client = ctx.client(space);
      const completions = await runCount(requests, 4, (i) =>
        client.complete(`${prefix}-${i}`, { stream: streams(i, 1 / 2), timeoutMs, text: 'Say hello to the fault suite.' }),
      );
      const byTag = ctx.upstream.callsByTag();
      const most = Math.max(0, ...completions.map((c) => byTag.get(c.tag)?.calls ?? 0));
      return trafficRow(name, completions, {
        lostLogs: await ctx.lostLogs(completions.map((c) => c.logId)),
        callsPerRequest: callsPerRequest(ctx, completions),
        other: { 'most calls for one request': most },
        notes: [`every request's first upstream call ${what}; 4 clients; patience ${timeoutMs / 1000} s`],
      });
    },
  };
}

export const transient500 = transient('transient 500', { kind: 'status', status: 500 }, 'answers HTTP 500');
export const transient429 = transient('transient 429', { kind: 'status', status: 429, retryAfterSeconds: 1 }, 'answers HTTP 429 with `Retry-After: 1`');
export const transientReset = transient('transient reset', { kind: 'reset' }, 'has its connection destroyed before an answer');
