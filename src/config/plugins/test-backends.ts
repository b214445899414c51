import type { Config } from '../schema';

/**
 * The plugin test backends this configuration chose (`WEB_SEARCH_BACKEND=test`, ...), as the settings
 * that chose them: each answers with test output and no network, so the start-up log names them.
 */
export function testBackendsOf(plugins: Config['plugins']): string[] {
  const chosen: [boolean, string][] = [
    [plugins.webSearch.backend === 'test', 'WEB_SEARCH_BACKEND=test'],
    [plugins.spaceSearch.embeddings?.backend === 'test', 'EMBEDDINGS_MODEL=test-embedding'],
    [plugins.media.images.backend === 'test', 'IMAGES_BACKEND=test'],
    [plugins.media.transcribe.backend === 'test', 'TRANSCRIBE_BACKEND=test'],
  ];
  return chosen.filter(([on]) => on).map(([, setting]) => setting);
}
