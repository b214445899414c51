import { existsSync } from 'node:fs';
import path from 'node:path';

/** The folder holding package.json, whether running from src/ with tsx or from dist/ after a build. */
export function projectRoot(from: string = __dirname): string {
  let dir = from;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`No package.json above ${from}`);
    dir = parent;
  }
  return dir;
}
