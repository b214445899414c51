import { z } from 'zod';
import type { HttpClient } from '../../src/net/http-client';
import { bareText, pluginProblem, pluginWarning, sentence } from '../../src/pipeline/plugin-notes';
import { PluginSteps, type ConcurrencyLimiter, type OutputCache } from '../../src/pipeline/plugin-steps';
import { testRun } from '../helpers/run';
import { webSearchAvailability } from '../../src/plugins/web-search/index';
import type { Availability, Plugin, PluginId, PluginOutput } from '../../src/plugins/types';

/**
 * The warnings and errors plugins leave in `metadata.warning` / `metadata.error` name their plugin once
 * and end in one period, whatever the plugin's own text looks like.
 */

const noLimit: ConcurrencyLimiter = { run: (_key, _limit, work) => work() };
const noCache: OutputCache = { get: () => Promise.resolve(null), set: () => Promise.resolve() };
const noHttp: HttpClient = () => Promise.reject(new Error('no network in this test'));

function plugin(id: PluginId, availability: Availability, run: Plugin['run'] = () => Promise.reject(new Error('not run'))): Plugin {
  return {
    id,
    phase: 'before_model',
    description: 'test',
    toolParameters: z.object({}),
    settingsSchema: z.object({}),
    backendKey: id,
    availability: () => availability,
    run,
  };
}

function steps(plugins: Plugin[]): PluginSteps {
  return new PluginSteps({
    plugins: new Map(plugins.map((p) => [p.id, p])),
    limiter: noLimit,
    cache: noCache,
    cacheTtlSeconds: 0,
    concurrencyFor: () => 1,
    timeoutMs: 1000,
    backend: noHttp,
    untrusted: noHttp,
  });
}

function runContext() {
  return testRun();
}

const input = { messages: [], query: 'q', files: [], images: [] };
const callOf = (id: PluginId) => ({ id, trigger: 'requested' as const, reason: 'named', args: null });

describe('plugin warnings', () => {
  it('an unavailable web-search reads "web-search is unavailable: …" once, with one period', async () => {
    const reason = webSearchAvailability({ backend: 'searxng', baseUrl: null, apiKey: null } as unknown as Parameters<typeof webSearchAvailability>[0]);
    const ctx = runContext();
    await steps([plugin('web-search', reason)]).runAll(ctx, [callOf('web-search')], input);
    expect(ctx.trace.warnings).toEqual(['web-search is unavailable: SEARXNG_BASE_URL is not set.']);
    expect(ctx.trace.plugins[0]).toMatchObject({ status: 'unavailable', error: 'web-search is unavailable: SEARXNG_BASE_URL is not set' });
  });

  it('a reason that ends in a period does not end in ".."', async () => {
    const ctx = runContext();
    const socialPost = plugin('social-post', { available: false, reason: 'PLUGIN_SECRETS_KEY is not configured, so no Space can store a social account.' });
    await steps([socialPost]).runAll(ctx, [callOf('social-post')], input);
    expect(ctx.trace.warnings).toEqual(['social-post is unavailable: PLUGIN_SECRETS_KEY is not configured, so no Space can store a social account.']);
  });

  it("a plugin's own warning, prefixed with its id or not, with a period or not, names it once", async () => {
    const output = (warning: string): PluginOutput => ({ context: null, searchResults: [], artifacts: [], costUsd: 0, warning });
    const ctx = runContext();
    await steps([plugin('web-search', { available: true }, () => Promise.resolve(output('web-search: 1 of 3 result pages could not be read')))]).runAll(
      ctx,
      [callOf('web-search')],
      input,
    );
    await steps([
      plugin('social-post', { available: true }, () => Promise.resolve(output('social-post: this request had already posted; the earlier post is returned.'))),
    ]).runAll(ctx, [callOf('social-post')], input);
    await steps([plugin('transcribe-audio', { available: true }, () => Promise.resolve(output('one file was skipped')))]).runAll(
      ctx,
      [callOf('transcribe-audio')],
      input,
    );
    expect(ctx.trace.warnings).toEqual([
      'web-search: 1 of 3 result pages could not be read.',
      'social-post: this request had already posted; the earlier post is returned.',
      'transcribe-audio: one file was skipped.',
    ]);
  });

  it('composes each sentence once', () => {
    expect(bareText('web-search', 'web-search: x is not set.. ')).toBe('x is not set');
    expect(pluginProblem('web-search', 'failed', 'web-search: the backend answered 502.')).toBe('web-search failed: the backend answered 502');
    expect(sentence('The plugin web-search failed: timeout.')).toBe('The plugin web-search failed: timeout.');
    expect(pluginWarning('web-search', 'web-search: done')).toBe('web-search: done.');
  });
});
