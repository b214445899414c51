import type { PluginContext } from '../../../src/plugins/types';
import { readWebSearchConfig, type WebSearchBackend } from '../../../src/config/plugins/web-search';
import { webSearchSettings } from '../../../src/schemas/plugin-settings';
import { pluginContext } from '../scenarios';
import { startBraveSimulator } from '../../simulator/plugins/brave';
import { startExaSimulator } from '../../simulator/plugins/exa';
import { SIM_SEARCH_KEY, type SearchSimulator, type SearchSimulatorOptions } from '../../simulator/plugins/search-server';
import { startSearxngSimulator } from '../../simulator/plugins/searxng';
import { startTavilySimulator } from '../../simulator/plugins/tavily';

export const SIMULATORS: Record<WebSearchBackend, (options?: SearchSimulatorOptions) => Promise<SearchSimulator>> = {
  searxng: startSearxngSimulator,
  brave: startBraveSimulator,
  tavily: startTavilySimulator,
  exa: startExaSimulator,
};

/** The plugin's configuration as the environment of a deployment pointing at `sim` would give it. */
export function configFor(backend: WebSearchBackend, sim: SearchSimulator, extra: Record<string, string> = {}) {
  const upper = backend.toUpperCase();
  return readWebSearchConfig({ WEB_SEARCH_BACKEND: backend, [`${upper}_BASE_URL`]: sim.url, [`${upper}_API_KEY`]: SIM_SEARCH_KEY, ...extra });
}

export const settingsWith = (patch: Record<string, unknown> = {}) => webSearchSettings.parse(patch);

/** Time the tests outside the scenario table give the plugin, in ms (the table's 400 ms is for its timeout case). */
const ROOMY_MS = 10_000;

/** A plugin context with room to work: first calls (module loading, connections) can take a while on a busy machine. */
export function roomyContext(settings: unknown, overrides: Partial<PluginContext> = {}): PluginContext {
  return pluginContext(settings, { signal: AbortSignal.timeout(ROOMY_MS), deadline: Date.now() + ROOMY_MS, ...overrides });
}
