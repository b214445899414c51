import pino from 'pino';
import { z } from 'zod';
import type { ToolCall } from '../../src/domain/chat';
import type { HttpClient } from '../../src/net/http-client';
import { jobController } from '../../src/pipeline/cancellations';
import { PluginSteps } from '../../src/pipeline/plugin-steps';
import type { RunContext } from '../../src/pipeline/run-context';
import { RunTrace } from '../../src/pipeline/run-trace';
import { MAX_PLUGIN_CALLS_PER_STEP, runToolCalls } from '../../src/pipeline/tool-loop';
import type { Plugin, PluginId } from '../../src/plugins/types';

const noHttp: HttpClient = () => Promise.reject(new Error('no network in this test'));

function countingPlugin(): { plugin: Plugin; runs: () => number } {
  let runs = 0;
  const plugin: Plugin = {
    id: 'image-generation-generic',
    phase: 'before_model',
    description: 'test',
    toolParameters: z.object({ prompt: z.string() }),
    settingsSchema: z.object({}),
    backendKey: 'test',
    availability: () => ({ available: true }),
    run: () => {
      runs += 1;
      return Promise.resolve({ context: 'an image', searchResults: [], artifacts: [], costUsd: 0.04 });
    },
  };
  return { plugin, runs: () => runs };
}

function context(steps: PluginSteps): RunContext {
  const fields = {
    job: { requestId: 'req-1', deadline: Date.now() + 60_000, request: {} },
    run: 'run-1',
    space: { id: 'space', orgId: 'org', dataSpaceId: 'space', settings: {} },
    prepared: { policies: { privacy_level: 1 }, stream: false, chat: { messages: [] }, query: 'q' },
    signal: jobController().signal,
    logger: pino({ level: 'silent' }),
    trace: new RunTrace(),
    plugins: steps,
    reply: () => Promise.resolve(),
  };
  return fields as unknown as RunContext;
}

describe('the tool loop', () => {
  it(`runs at most ${MAX_PLUGIN_CALLS_PER_STEP} plugin calls of one model turn and answers the rest with an error`, async () => {
    const { plugin, runs } = countingPlugin();
    const steps = new PluginSteps({
      plugins: new Map<PluginId, Plugin>([[plugin.id, plugin]]),
      limiter: { run: (_key, _limit, work) => work() },
      cache: { get: () => Promise.resolve(null), set: () => Promise.resolve() },
      cacheTtlSeconds: 0,
      concurrencyFor: () => 100,
      timeoutMs: 1000,
      backend: noHttp,
      untrusted: noHttp,
    });
    const calls: ToolCall[] = Array.from({ length: 30 }, (_, i) => ({ id: `call_${i}`, type: 'function', function: { name: 'generate_image', arguments: '{"prompt":"a cat"}' } }));
    const byName = new Map<string, PluginId>([['generate_image', plugin.id]]);
    const turn = await runToolCalls(context(steps), { calls, tools: { definitions: [], byName }, after: [], assistant: null });
    expect(runs()).toBe(MAX_PLUGIN_CALLS_PER_STEP);
    const answers = turn.filter((message) => message.role === 'tool');
    expect(answers).toHaveLength(30);
    expect(String(answers.at(-1)?.content)).toContain('too many');
  });
});
