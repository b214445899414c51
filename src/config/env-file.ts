import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Reads `.env` from the directory the process starts in (`npm start`, `npm run db:migrate`, `db:seed` and
 * the CLI all start in the project's folder) into `process.env`, with Node's own parser. A variable the
 * environment already sets wins over the file's line. No file, no change. Returns the file read, if any.
 */
export function loadEnvFile(dir: string = process.cwd()): string | null {
  const file = path.join(dir, '.env');
  if (!existsSync(file)) return null;
  process.loadEnvFile(file);
  return file;
}
