import { type Command, CommanderError, InvalidArgumentError } from 'commander';
import type { CliOutput } from '../../cli/context';
import { EvalInputError } from './eval-inputs';

export const EXIT_OK = 0;
/** A bug or an environment failure: the message and its stack go to stderr. */
export const EXIT_FAILURE = 1;
/** The command was used wrongly or given bad input: one line on stderr, no stack. */
export const EXIT_USAGE = 2;

/** The seed of the random baseline, the trainers and the fold split, unless `--seed` says otherwise. */
export const DEFAULT_SEED = 7;

/** A whole number option value, rejected by commander when it is not one. */
export function wholeNumber(text: string): number {
  if (!/^\d+$/.test(text)) throw new InvalidArgumentError('expected a whole number.');
  return Number(text);
}

/**
 * Runs a command line (without the node and script arguments) through `program` and answers the exit
 * code. The program writes to `io`; commander's own usage errors keep commander's message.
 */
export async function runCommand(program: Command, argv: readonly string[], io: CliOutput): Promise<number> {
  program
    .configureOutput({ writeOut: (text) => io.out(text), writeErr: (text) => io.err(text) })
    .exitOverride()
    .showHelpAfterError('(add --help for usage)');
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT_OK;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    if (err instanceof EvalInputError) {
      io.err(`error: ${err.message}\n`);
      return EXIT_USAGE;
    }
    io.err(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return EXIT_FAILURE;
  }
}
