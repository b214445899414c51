import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The folder holding package.json, from this file's place in src/ or dist/src/. */
function packageRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** Where the shipped router weights live: next to the model catalog whose profiles they read. */
export const DEFAULT_WEIGHTS_FILE = join(packageRoot(), 'prisma', 'catalog', 'router-weights.json');
