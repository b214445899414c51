import pino from 'pino';
import { z } from 'zod';
import type { HttpClient } from '../../src/net/http-client';
import { PluginSteps, type ConcurrencyLimiter, type OutputCache } from '../../src/pipeline/plugin-steps';
import type { RunContext } from '../../src/pipeline/run-context';
import { RunTrace } from '../../src/pipeline/run-trace';
import type { Plugin, PluginOutput } from '../../src/plugins/types';

/** Runs the work at once: these tests are about the runner, not the shared limit. */
const noLimit: ConcurrencyLimiter = { run: (_key, _limit, work) => work() };
const noCache: OutputCache = { get: () => Promise.resolve(null), set: () => Promise.resolve() };
const noHttp: HttpClient = () => Promise.reject(new Error('no network in this test'));

function plugin(run: Plugin['run']): Plugin {
  return {
    id: 'web-search',
    phase: 'before_model',
    description: 'test plugin',
    toolParameters: z.object({}),
    settingsSchema: z.object({}),
    backendKey: 'test',
    availability: () => ({ available: true }),
    run,
  };
}

function steps(subject: Plugin, timeoutMs: number): PluginSteps {
  return new PluginSteps({
    plugins: new Map([[subject.id, subject]]),
    limiter: noLimit,
    cache: noCache,
    cacheTtlSeconds: 0,
    concurrencyFor: () => 1,
    timeoutMs,
    backend: noHttp,
    untrusted: noHttp,
  });
}

function runContext(): RunContext {
  const fields = {
    job: { requestId: 'req-1', deadline: Date.now() + 60_000 },
    run: 'run-1',
    space: { id: 'space', orgId: 'org', dataSpaceId: 'space', settings: {} },
    prepared: { policies: { privacy_level: 1 }, stream: false },
    signal: new AbortController().signal,
    logger: pino({ level: 'silent' }),
    trace: new RunTrace(),
    reply: () => Promise.resolve(),
  };
  return fields as unknown as RunContext;
}

const input = { messages: [], query: 'q', files: [], images: [] };
const call = { id: 'web-search' as const, trigger: 'requested' as const, reason: 'named', args: null };

describe('PluginSteps', () => {
  it('ends a plugin that ignores its abort signal at the plugin timeout, as a timeout failure', async () => {
    const hanging = plugin(() => new Promise<PluginOutput>(() => undefined));
    const ctx = runContext();
    const [run] = await steps(hanging, 50).runAll(ctx, [call], input);
    expect(run?.output).toBeNull();
    expect(ctx.trace.plugins[0]).toMatchObject({ id: 'web-search', status: 'failed' });
    expect(ctx.trace.steps[0]).toMatchObject({ kind: 'plugin', error: { kind: 'timeout' } });
  });

  it('records a plugin that throws a plain Error as failed without its message', async () => {
    const throwing = plugin(() => Promise.reject(new Error('secret detail from https://internal.example/x')));
    const ctx = runContext();
    const [run] = await steps(throwing, 1000).runAll(ctx, [call], input);
    expect(run?.output).toBeNull();
    expect(JSON.stringify(ctx.trace)).not.toContain('internal.example');
    expect(ctx.trace.steps[0]).toMatchObject({ kind: 'plugin', statusCode: 500, error: { kind: 'internal' } });
  });
});
