import { WEB_SEARCH_BACKENDS, WEB_SEARCH_DEFAULT_COST_USD } from '../../../src/config/plugins/web-search';
import { createWebSearchPlugin } from '../../../src/plugins/web-search';
import type { PluginInput } from '../../../src/plugins/types';
import type { SearchSimulator } from '../../simulator/plugins/search-server';
import { runPluginScenarios } from '../scenarios';
import { configFor, settingsWith, SIMULATORS } from './backends';

const input: PluginInput = {
  messages: [{ role: 'user', content: 'latest tide tables' }],
  query: 'latest tide tables',
  files: [],
  images: [],
  args: null,
};

for (const backend of WEB_SEARCH_BACKENDS) {
  let sim: SearchSimulator;
  runPluginScenarios({
    name: `web-search (${backend})`,
    start: async () => {
      sim = await SIMULATORS[backend]();
      return { plugin: createWebSearchPlugin(configFor(backend, sim)), close: () => sim.close() };
    },
    script: (...faults) => {
      sim.faults.reset();
      sim.faults.push(...faults);
    },
    input,
    settings: settingsWith(),
    empty: 'nothing',
    expectOk: (output) => {
      expect(output.searchResults).toHaveLength(5);
      expect(output.searchResults.map((item) => item.index)).toEqual([1, 2, 3, 4, 5]);
      expect(output.searchResults[0]).toMatchObject({ source: 'web', url: 'https://example.org/result-1', title: 'Result 1 about latest tide tables' });
      expect(output.context).toContain('[1] Result 1 about latest tide tables — https://example.org/result-1');
      expect(output.costUsd).toBe(WEB_SEARCH_DEFAULT_COST_USD[backend]);
      expect(output.warning).toBeUndefined();
    },
  });
}
