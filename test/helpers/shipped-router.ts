import type { RouterModel } from '../../src/routing/learned/router-model';
import { loadWeightsFile } from '../../src/routing/learned/weights-file';
import { DEFAULT_WEIGHTS_FILE } from '../../src/config/weights-location';

let cached: RouterModel | null = null;

/** The router weights the repository ships, loaded once per test file. */
export function shippedRouter(): RouterModel {
  cached ??= loadWeightsFile(DEFAULT_WEIGHTS_FILE);
  return cached;
}
