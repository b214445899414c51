import { z } from 'zod';
import type { HttpClient } from '../../src/net/http-client';
import { MODEL_CALL_RESERVE_MS, PluginSteps, type ConcurrencyLimiter, type OutputCache } from '../../src/pipeline/plugin-steps';
import { testRun } from '../helpers/run';
import { spaceContext } from '../helpers/space-context';
import type { Plugin, PluginOutput } from '../../src/plugins/types';

/** Runs the work at once: these tests are about the runner, not the shared limit. */
const noLimit: ConcurrencyLimiter = { run: (_key, _limit, work) => work() };
const noCache: OutputCache = { get: () => Promise.resolve(null), set: () => Promise.resolve() };
const noHttp: HttpClient = () => Promise.reject(new Error('no network in this test'));

function plugin(run: Plugin['run'], id: Plugin['id'] = 'web-search'): Plugin {
  return {
    id,
    phase: 'before_model',
    description: 'test plugin',
    toolParameters: z.object({}),
    settingsSchema: z.object({}),
    backendKey: 'test',
    availability: () => ({ available: true }),
    run,
  };
}

function steps(subject: Plugin, timeoutMs: number, cache: OutputCache = noCache): PluginSteps {
  return new PluginSteps({
    plugins: new Map([[subject.id, subject]]),
    limiter: noLimit,
    cache,
    cacheTtlSeconds: cache === noCache ? 0 : 600,
    concurrencyFor: () => 1,
    timeoutMs,
    backend: noHttp,
    untrusted: noHttp,
  });
}

function runContext(settings: Record<string, unknown> = {}) {
  return testRun({ space: { settings: { ...spaceContext().settings, ...settings } } });
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

  it.each(['space-search', 'image-generation-generic', 'transcribe-audio'] as const)(
    'never serves %s from the result cache (Space files can be deleted; images are made anew)',
    async (id) => {
      const kept = new Map<string, PluginOutput>();
      const memory: OutputCache = {
        get: (pluginId, key) => Promise.resolve(kept.get(`${pluginId}:${JSON.stringify(key)}`) ?? null),
        set: (pluginId, key, output) => Promise.resolve(void kept.set(`${pluginId}:${JSON.stringify(key)}`, output)),
      };
      let n = 0;
      const counting = plugin(() => Promise.resolve({ context: `run ${(n += 1)}`, searchResults: [], artifacts: [], costUsd: 0 }), id);
      const runner = steps(counting, 1000, memory);
      const callOf = { ...call, id };
      await runner.runAll(runContext(), [callOf], input);
      const [second] = await runner.runAll(runContext(), [callOf], input);
      expect(second?.output?.context).toBe('run 2');
    },
  );

  it('serves web-search from the result cache at privacy level 1', async () => {
    const kept = new Map<string, PluginOutput>();
    const memory: OutputCache = {
      get: (_id, key) => Promise.resolve(kept.get(JSON.stringify(key)) ?? null),
      set: (_id, key, output) => Promise.resolve(void kept.set(JSON.stringify(key), output)),
    };
    let n = 0;
    const runner = steps(
      plugin(() => Promise.resolve({ context: `run ${(n += 1)}`, searchResults: [], artifacts: [], costUsd: 0.01 })),
      1000,
      memory,
    );
    await runner.runAll(runContext(), [call], input);
    const [second] = await runner.runAll(runContext(), [call], input);
    expect(second?.output).toMatchObject({ context: 'run 1', costUsd: 0 });
  });

  it('records stored settings the plugin cannot read as its failure instead of failing the whole request', async () => {
    const strict = {
      ...plugin(() => Promise.resolve({ context: 'x', searchResults: [], artifacts: [], costUsd: 0 })),
      settingsSchema: z.object({ max_results: z.number().max(10) }),
    };
    const ctx = runContext({ plugins: { 'web-search': { max_results: 50 } } });
    const [run] = await steps(strict, 1000).runAll(ctx, [call], input);
    expect(run?.output).toBeNull();
    expect(ctx.trace.plugins[0]).toMatchObject({ id: 'web-search', status: 'failed' });
  });

  it('leaves the model its reserve of the request deadline: a plugin before the model must answer earlier', async () => {
    const deadlines: number[] = [];
    const recording = (phase: Plugin['phase']) => ({
      ...plugin((_input, pluginCtx) => {
        deadlines.push(pluginCtx.deadline);
        return Promise.resolve({ context: null, searchResults: [], artifacts: [], costUsd: 0 });
      }),
      phase,
    });
    const ctx = runContext();
    const jobDeadline = ctx.job.deadline;
    await steps(recording('before_model'), 10 * 60_000).runAll(ctx, [call], input);
    await steps(recording('after_model'), 10 * 60_000).runAll(ctx, [call], input);
    expect(deadlines).toEqual([jobDeadline - MODEL_CALL_RESERVE_MS, jobDeadline]);
  });
});
