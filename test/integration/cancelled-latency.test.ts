import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import request from 'supertest';
import { formatLogLine } from '../../src/cli/logs-command';
import type { LogView } from '../../src/schemas/logs';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { callsTo, eventually, isolatedSpace, onlyLogOf, userMessage } from '../helpers/completion-fixtures';
import type { Tenant } from '../helpers/test-context';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * A cancelled request's log shows how long it ran until it was cancelled, never -1: in the API, and so in
 * the CLI and the console that read it. A log with nothing measured shows null.
 */

/** Long, so that only the cancellation can end the upstream call. */
const UPSTREAM_TIMEOUT_MS = 10_000;
let sim: Simulator;
let h: CompletionsHarness;

beforeAll(async () => {
  sim = await startSimulator();
  h = startCompletionsHarness({ providers: simulatedProviders(sim), upstreamTimeoutMs: UPSTREAM_TIMEOUT_MS });
});
afterAll(async () => {
  await h.close();
  await sim.close();
});

/** A completion over a raw connection, which the test drops like a client that gives up; `answer` is set if one comes first. */
function rawCompletion(app: Express, tenant: Tenant, body: object): { drop(): void; close(): Promise<void>; answer(): string | undefined } {
  const server = app.listen(0, '127.0.0.1');
  let req: http.ClientRequest | undefined;
  let answer: string | undefined;
  server.on('listening', () => {
    req = http.request({
      host: '127.0.0.1',
      port: (server.address() as AddressInfo).port,
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { ...tenant.auth, 'content-type': 'application/json' },
    });
    req.on('error', () => undefined);
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => (answer = `${res.statusCode ?? '?'} ${text}`));
    });
    req.end(JSON.stringify(body));
  });
  return { drop: () => req?.destroy(), close: () => new Promise((resolve) => server.close(() => resolve())), answer: () => answer };
}

describe('the latency of a cancelled request', () => {
  it('is the time until it was cancelled, in the API and the CLI line', async () => {
    const { tenant, models } = await isolatedSpace(h, { models: [{ name: 'hanging', namespace: 'sim-hang' }] });
    const startedAt = Date.now();
    const client = rawCompletion(h.app, tenant, { messages: userMessage('Are you there?') });
    // Until the upstream call is under way; a request answered before it (refused, failed) ends the wait with its answer.
    await eventually(() => {
      const answered = client.answer();
      if (answered !== undefined) throw new Error(`answered before its upstream call: ${answered}`);
      return callsTo(sim, models.hanging).find((r) => r.closedAt === undefined);
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    client.drop();
    await client.close();
    const { parent } = await onlyLogOf(h, tenant);
    expect(parent.status_code).toBe(499);

    const res = await request(h.app).get(`/v1/logs/${parent.id}`).set(tenant.auth);
    expect(res.status).toBe(200);
    const log = res.body as LogView;
    // At least the 300 ms it ran before the client left; at most the time until its log was read, so never
    // the upstream timeout's 10 s (nor -1), however slow the machine.
    expect(log.latency).toBeGreaterThanOrEqual(300);
    expect(log.latency).toBeLessThanOrEqual(Date.now() - startedAt);
    expect(log.latency).toBeLessThan(UPSTREAM_TIMEOUT_MS);
    const line = formatLogLine(log);
    expect(line).toContain(`  ${Math.round(log.latency ?? -1)}ms  `);
    expect(line).not.toMatch(/-\d+ms/);
  });

  it('is null, not -1, for a log with nothing measured', async () => {
    const { tenant } = await isolatedSpace(h, { models: [{ name: 'unused', namespace: 'sim-hang' }] });
    const row = await h.services.db.log.create({ data: { org_id: tenant.org_id, app_id: tenant.app_id, timestamp: BigInt(Date.now()), status_code: 499 } });
    const res = await request(h.app).get(`/v1/logs/${row.id}`).set(tenant.auth);
    expect(res.body.latency).toBeNull();
    expect(formatLogLine(res.body as LogView)).toContain('  latency=-  ');
    const listed = await request(h.app).get('/v1/logs').query({ app_id: tenant.app_id }).set(tenant.auth);
    expect(listed.body.data.map((l: LogView) => l.latency)).toEqual([null]);
  });
});
