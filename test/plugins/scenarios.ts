import pino from 'pino';
import { backendClient } from '../../src/net/backend-client';
import type { HttpClient } from '../../src/net/http-client';
import { UpstreamError } from '../../src/errors/upstream-error';
import type { Plugin, PluginContext, PluginInput, PluginOutput } from '../../src/plugins/types';
import type { BackendFault } from '../simulator/plugins/faults';

/** One plugin wired to its simulated backend, as the shared scenario table needs it. */
export interface PluginSubject {
  name: string;
  /** Builds the plugin against a started simulator (called in beforeAll). */
  start(): Promise<{ plugin: Plugin; close(): Promise<void> }>;
  /**
   * Sets the faults of the backend's next requests, dropping any still queued: a scenario whose plugin gave
   * up before calling the backend (the timeout one, on a loaded machine) must not leave its fault to the next.
   */
  script(...faults: BackendFault[]): void;
  input: PluginInput;
  /** The plugin's per-Space settings (parsed; defaults filled in). */
  settings: unknown;
  /** What an `ok` answer must contain (besides not throwing). */
  expectOk(output: PluginOutput): void;
  /** What an `empty` answer gives: a plugin may answer with nothing, or refuse (e.g. an image backend that sent no image). */
  empty: 'nothing' | 'error';
  /** Opt-outs, with the reason, as the provider table does. */
  skip?: Partial<Record<ScenarioName, string>>;
  /** For plugins that need more of the context (a Space id with files, an untrusted client). */
  context?: Partial<PluginContext>;
}

export type ScenarioName = 'ok' | 'empty' | 'timeout' | '4xx' | '5xx' | 'malformed';

/** Time a plugin gets in the `timeout` scenario, in ms. */
const SCENARIO_TIMEOUT_MS = 400;
/** Time it gets in every other scenario: an answer that only a busy machine delays must not time out. */
const SCENARIO_AMPLE_MS = 10_000;

export function pluginContext(settings: unknown, overrides: Partial<PluginContext> = {}, timeoutMs = SCENARIO_AMPLE_MS): PluginContext {
  const client: HttpClient = backendClient;
  return {
    requestId: '00000000-0000-4000-8000-000000000001',
    space: { id: '00000000-0000-4000-8000-00000000000a', orgId: '00000000-0000-4000-8000-00000000000b', dataSpaceId: '00000000-0000-4000-8000-00000000000a' },
    settings,
    signal: AbortSignal.timeout(timeoutMs),
    deadline: Date.now() + timeoutMs,
    logger: pino({ level: 'silent' }),
    backend: client,
    untrusted: client,
    ...overrides,
  };
}

async function failureOf(work: Promise<unknown>): Promise<UpstreamError> {
  try {
    await work;
  } catch (err) {
    if (err instanceof UpstreamError) return err;
    throw err;
  }
  throw new Error('expected the plugin to fail');
}

/**
 * The table every plugin passes: a normal answer, an empty one, a backend that never answers, a 4xx,
 * a 5xx and a body in the wrong format. Failures are UpstreamErrors of the right kind (retryable for
 * timeouts and 5xx, not for 4xx), never anything else.
 */
export function runPluginScenarios(subject: PluginSubject): void {
  describe(`${subject.name}: plugin scenarios`, () => {
    let plugin: Plugin;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ plugin, close } = await subject.start());
    });
    afterAll(async () => close());
    const run = (timeoutMs?: number) => plugin.run(subject.input, pluginContext(subject.settings, subject.context, timeoutMs));
    const cases: Record<ScenarioName, () => Promise<void>> = {
      ok: async () => {
        subject.script({ kind: 'ok' });
        const output = await run();
        expect(output.costUsd).toBeGreaterThanOrEqual(0);
        subject.expectOk(output);
      },
      empty: async () => {
        subject.script({ kind: 'empty' });
        if (subject.empty === 'error') {
          expect((await failureOf(run())).kind).toBe('invalid_response');
          return;
        }
        const output = await run();
        expect(output.searchResults).toEqual([]);
        expect(output.artifacts).toEqual([]);
      },
      timeout: async () => {
        subject.script({ kind: 'timeout' });
        const error = await failureOf(run(SCENARIO_TIMEOUT_MS));
        expect(['timeout', 'aborted']).toContain(error.kind);
      },
      '4xx': async () => {
        subject.script({ kind: 'status', status: 400 });
        const error = await failureOf(run());
        expect(error.status).toBe(400);
        expect(error.retryable).toBe(false);
      },
      '5xx': async () => {
        subject.script({ kind: 'status', status: 503 });
        const error = await failureOf(run());
        expect(error.status).toBe(503);
        expect(error.retryable).toBe(true);
      },
      malformed: async () => {
        subject.script({ kind: 'malformed' });
        expect((await failureOf(run())).kind).toBe('invalid_response');
      },
    };
    for (const [name, body] of Object.entries(cases) as [ScenarioName, () => Promise<void>][]) {
      const reason = subject.skip?.[name];
      if (reason) test.skip(`${name} (${reason})`, () => undefined);
      else test(name, body);
    }
  });
}
