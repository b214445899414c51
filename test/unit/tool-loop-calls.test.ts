import { z } from 'zod';
import type { ToolCall } from '../../src/domain/chat';
import type { HttpClient } from '../../src/net/http-client';
import { jobController } from '../../src/pipeline/cancellations';
import { PluginSteps } from '../../src/pipeline/plugin-steps';
import { testRun } from '../helpers/run';
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

function context() {
  return testRun({ signal: jobController().signal, prepared: { chat: { messages: [] }, query: 'q' } });
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
    const calls: ToolCall[] = Array.from({ length: 30 }, (_, i) => ({
      id: `call_${i}`,
      type: 'function',
      function: { name: 'generate_image', arguments: '{"prompt":"a cat"}' },
    }));
    const byName = new Map<string, PluginId>([['generate_image', plugin.id]]);
    const turn = await runToolCalls(context(), steps, { calls, tools: { definitions: [], byName }, after: [], assistant: null });
    expect(runs()).toBe(MAX_PLUGIN_CALLS_PER_STEP);
    const answers = turn.filter((message) => message.role === 'tool');
    expect(answers).toHaveLength(30);
    expect(String(answers.at(-1)?.content)).toContain('too many');
  });
});
