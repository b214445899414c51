import type { PluginTrigger } from '../domain/completion';
import { ApiError } from '../errors/api-error';
import { lazyChild } from '../logging/lazy-child';
import type { HttpClient } from '../net/http-client';
import { descriptorOf } from '../plugins/catalog';
import type { Plugin, PluginContext, PluginId, PluginInput, PluginOutput } from '../plugins/types';
import { UpstreamError } from '../errors/upstream-error';
import { statusOfError, type PluginRecord } from './attempt-record';
import type { Run } from './run';
import type { SpaceContext } from '../store/space-context';
import { derivedOnce } from './space-memo';
import { untilAborted } from './until-aborted';
import { Deadline } from '../net/deadline';
import { pluginProblem, pluginWarning, sentence } from './plugin-notes';

/** A plugin to run for a request, and why. */
export interface PluginCall {
  id: PluginId;
  trigger: PluginTrigger;
  reason: string;
  /** The model's tool-call arguments, when the model called it. */
  args: Record<string, unknown> | null;
}

/** How one call ended. */
export interface PluginRun {
  call: PluginCall;
  output: PluginOutput | null;
  /** Why it gave nothing: unavailable, failed, or skipped. */
  problem: string | null;
  /** The failure itself, for a plugin whose failure fails the request. */
  error: unknown;
}

/** A concurrency limit shared by every worker (BackendLimiter). */
export interface ConcurrencyLimiter {
  run<T>(key: string, limit: number, work: () => Promise<T>, options: { signal: AbortSignal; deadline: number }): Promise<T>;
}

/** What a cached output depends on: its normalised query and everything else that changes the result. */
export type OutputKey = { query: string } & Record<string, unknown>;

/** Plugin outputs kept for a while (PluginResultCache); used at privacy level 1 only. */
export interface OutputCache {
  get(pluginId: PluginId, key: OutputKey): Promise<PluginOutput | null>;
  set(pluginId: PluginId, key: OutputKey, output: PluginOutput, ttlSeconds: number): Promise<void>;
}

export interface PluginStepsDeps {
  plugins: ReadonlyMap<PluginId, Plugin>;
  limiter: ConcurrencyLimiter;
  cache: OutputCache;
  /** Seconds a plugin output is cached; 0 turns the cache off. */
  cacheTtlSeconds: number;
  /** Concurrent calls per backend key, across all workers. */
  concurrencyFor(backendKey: string): number;
  /** Longest plugin run, in ms (the request's deadline may cut it shorter). */
  timeoutMs: number;
  backend: HttpClient;
  untrusted: HttpClient;
}

/** Renumbers line-leading source markers `[n]` of a plugin's context from `first` on. */
function renumbered(context: string, { first, count }: { first: number; count: number }): string {
  if (first === 1) return context;
  return context.replace(/^\[(\d+)\]/gm, (marker, n: string) => (Number(n) >= 1 && Number(n) <= count ? `[${Number(n) + first - 1}]` : marker));
}

function errorOf(err: unknown, { requestAborted }: { requestAborted: boolean }): { kind: string; status: number | null; message: string } {
  // The run's own time limit aborts the plugin's signal too: unless the request itself was cancelled, a "cancelled" call timed out.
  if (err instanceof UpstreamError && err.kind === 'aborted' && !requestAborted)
    return { kind: 'timeout', status: 504, message: `${err.message} (the plugin's time limit passed)` };
  if (err instanceof UpstreamError) return { kind: err.kind, status: statusOfError(err), message: err.message };
  if (err instanceof ApiError) return { kind: err.code, status: err.status, message: err.message };
  return { kind: 'internal', status: 500, message: 'the plugin failed unexpectedly' };
}

/** Time kept in hand for the model call after plugins, in ms: plugins before the model end this long before the request's deadline. */
export const MODEL_CALL_RESERVE_MS = 5_000;

/** What a cached output depends on: the plugin's input, the Space's settings for it and the Space whose data it reads. */
function cacheKey(input: PluginInput, { settings, dataSpaceId }: { settings: unknown; dataSpaceId: string }): OutputKey {
  return { query: input.query, args: input.args, files: input.files, images: input.images, settings, dataSpaceId };
}

/**
 * The Space's stored settings of the plugin, defaults filled in, parsed once per Space snapshot; settings
 * it cannot read fail this plugin only.
 */
function settingsOf(plugin: Plugin, { space, storedUnder }: { space: SpaceContext; storedUnder: PluginId }): unknown {
  const parsed = derivedOnce(space, `plugin-settings:${storedUnder}`, () => plugin.settingsSchema.safeParse(space.settings.plugins?.[storedUnder] ?? {}));
  if (parsed.success) return parsed.data;
  const param = `settings.plugins.${plugin.id}`;
  throw new ApiError(
    'invalid_value',
    `${param} is not valid for this version of ${plugin.id}: ${parsed.error.issues[0]?.message ?? 'unreadable'}; update the Space's settings.`,
    param,
  );
}

/**
 * Runs a request's plugins: each under the backend's shared concurrency limit, a timeout and the
 * request's abort signal, all of them at once. A failure is recorded (child log, `metadata.error`)
 * and never thrown: the caller decides whether a failed plugin fails the request.
 */
export class PluginSteps {
  constructor(private readonly deps: PluginStepsDeps) {}

  /** Whether the plugin can run in this deployment. */
  available(id: PluginId): boolean {
    return this.deps.plugins.get(id)?.availability().available === true;
  }

  get(id: PluginId): Plugin | undefined {
    return this.deps.plugins.get(id);
  }

  async runAll(run: Run, calls: PluginCall[], input: Omit<PluginInput, 'args'>): Promise<PluginRun[]> {
    const runs = await Promise.all(calls.map((call) => this.runOne(run, call, { ...input, args: call.args })));
    // Numbered and recorded in call order, whatever order they finished in.
    for (const done of runs) this.record(run.trace, done);
    return runs;
  }

  private async runOne(run: Run, call: PluginCall, input: PluginInput): Promise<PluginRun & { record: PluginRecord }> {
    const startedAt = Date.now();
    const plugin = this.deps.plugins.get(call.id);
    const base = {
      plugin: call.id,
      backend: plugin?.backendKey ?? call.id,
      startedAt,
      query: String(input.args?.query ?? input.args?.prompt ?? input.query),
      cached: false,
    };
    const availability = plugin?.availability() ?? { available: false as const, reason: 'not built into this service' };
    if (!plugin || !availability.available) {
      const problem = pluginProblem(call.id, 'is unavailable', availability.available ? '' : availability.reason);
      return {
        call,
        output: null,
        problem,
        error: null,
        record: {
          ...base,
          kind: 'plugin',
          latencyMs: 0,
          statusCode: 503,
          costUsd: 0,
          results: 0,
          artifacts: 0,
          error: { kind: 'unavailable', status: 503, message: problem },
        },
      };
    }
    // Only a plugin whose output is a function of the cache key (its descriptor says so), at privacy level 1 only.
    const useCache = run.prepared.privacy.sharesPluginResults && this.deps.cacheTtlSeconds > 0 && descriptorOf(plugin.id).cacheable;
    try {
      const settings = settingsOf(plugin, { space: run.space, storedUnder: call.id });
      const key = cacheKey(input, { settings, dataSpaceId: run.space.dataSpaceId });
      const cached = useCache ? await this.deps.cache.get(call.id, key).catch(() => null) : null;
      const output = cached ?? (await this.execute(run, plugin, { input, settings }));
      if (useCache && !cached)
        this.deps.cache.set(call.id, key, output, this.deps.cacheTtlSeconds).catch((err: unknown) => run.logger.warn({ err }, 'plugin output not cached'));
      const costUsd = cached ? 0 : output.costUsd;
      const record: PluginRecord = {
        ...base,
        kind: 'plugin',
        cached: cached !== null,
        latencyMs: Date.now() - startedAt,
        statusCode: 200,
        costUsd,
        results: output.searchResults.length,
        artifacts: output.artifacts.length,
      };
      return { call, output: { ...output, costUsd }, problem: null, error: null, record };
    } catch (err) {
      const error = errorOf(err, { requestAborted: run.signal.aborted });
      run.logger.warn({ plugin: call.id, kind: error.kind, status: error.status }, 'plugin failed');
      const record: PluginRecord = {
        ...base,
        kind: 'plugin',
        latencyMs: Date.now() - startedAt,
        statusCode: error.status ?? 502,
        costUsd: 0,
        results: 0,
        artifacts: 0,
        error,
      };
      return { call, output: null, problem: pluginProblem(call.id, 'failed', error.message), error: err, record };
    }
  }

  private async execute(run: Run, plugin: Plugin, { input, settings }: { input: PluginInput; settings: unknown }): Promise<PluginOutput> {
    // A plugin before the model leaves the model call its reserve; one after it (social-post) may use the rest.
    const reserve = plugin.phase === 'before_model' ? MODEL_CALL_RESERVE_MS : 0;
    const deadline = Math.min(run.job.deadline - reserve, Date.now() + this.deps.timeoutMs);
    const limit = new Deadline(run.signal, { callMs: Math.max(1, deadline - Date.now()) });
    const { signal } = limit;
    const pluginCtx: PluginContext = {
      requestId: run.job.requestId,
      space: { id: run.space.id, orgId: run.space.orgId, dataSpaceId: run.space.dataSpaceId },
      settings,
      signal,
      deadline,
      logger: lazyChild(run.logger, { plugin: plugin.id }),
      backend: this.deps.backend,
      untrusted: this.deps.untrusted,
    };
    await this.step(run, plugin.id, 'started');
    try {
      // Raced inside the limited work (its backend slot is freed at the timeout) and outside it (a limiter stuck on Redis ends too).
      const race = <T>(work: Promise<T>) => untilAborted(work, { timeout: signal, request: run.signal, provider: plugin.id });
      const limited = this.deps.limiter.run(plugin.backendKey, this.deps.concurrencyFor(plugin.backendKey), () => race(plugin.run(input, pluginCtx)), {
        signal,
        deadline,
      });
      const output = await race(limited);
      await this.step(run, plugin.id, 'finished');
      return output;
    } catch (err) {
      await this.step(run, plugin.id, 'failed');
      throw err;
    } finally {
      limit.clear();
    }
  }

  /** Tells a streaming client which plugin runs (chunks it may ignore). */
  private async step(run: Run, name: string, status: 'started' | 'finished' | 'failed'): Promise<void> {
    if (!run.prepared.stream) return;
    await run.reply({ type: 'step', requestId: run.job.requestId, run: run.id, step: { kind: 'plugin', name, status } }).catch(() => undefined);
  }

  private record(trace: Run['trace'], done: PluginRun & { record: PluginRecord }): void {
    const { call, output, problem, record } = done;
    trace.addPlugin(record, {
      id: call.id,
      trigger: call.trigger,
      reason: call.reason,
      status: output ? 'ok' : record.error?.kind === 'unavailable' ? 'unavailable' : 'failed',
      latency_ms: record.latencyMs,
      cost: record.costUsd,
      ...(record.cached ? { cached: true } : {}),
      ...(problem ? { error: problem } : {}),
    });
    if (!output) {
      (record.error?.kind === 'unavailable' ? trace.warnings : trace.errors).push(sentence(problem ?? `${call.id} failed`));
      return;
    }
    const first = trace.nextSourceIndex();
    trace.searchResults.push(...output.searchResults.map((item) => ({ ...item, index: item.index + first - 1 })));
    trace.artifacts.push(...output.artifacts);
    if (output.warning) trace.warnings.push(pluginWarning(call.id, output.warning));
    if (output.context !== null) done.output = { ...output, context: renumbered(output.context, { first, count: output.searchResults.length }) };
  }
}
