import { CommanderError } from 'commander';
import { ConfigError } from '../config/load';
import { ApiError } from '../errors/api-error';

export const EXIT_OK = 0;
/** Something went wrong while running (database unreachable, bad configuration). */
export const EXIT_FAILURE = 1;
/** The command was used wrongly (unknown option, bad value, unknown id). */
export const EXIT_USAGE = 2;

export function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
  if (err instanceof ApiError && err.status < 500) return EXIT_USAGE;
  return EXIT_FAILURE;
}

/** The last non-empty line: Prisma puts a code frame first and the cause last. */
function lastLine(message: string): string {
  const lines = message.split('\n').map((line) => line.trim());
  return lines.filter((line) => line !== '').pop() ?? 'unknown error';
}

function summarize(err: unknown): string {
  if (err instanceof ConfigError) return `Invalid configuration: ${err.issues.join('; ')}`;
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error) return lastLine(err.message);
  return lastLine(String(err));
}

/**
 * What to write on stderr for a failed command, or null when commander already wrote it.
 * One line, plus the stack when `verbose` (LOG_LEVEL=debug) asks for it.
 */
export function describeFailure(err: unknown, verbose: boolean): string | null {
  if (err instanceof CommanderError) return null;
  const line = `error: ${summarize(err)}\n`;
  const showStack = verbose && err instanceof Error && err.stack !== undefined && !(err instanceof ApiError);
  return showStack ? `${line}${err.stack}\n` : line;
}
