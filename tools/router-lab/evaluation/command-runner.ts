import { type Command, CommanderError } from 'commander';
import type { CliOutput } from '../../../src/cli/context';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../../../src/cli/failure';
import { EvalInputError } from './eval-inputs';

/** The seed of the random baseline, the trainers and the fold split, unless `--seed` says otherwise. */
export const DEFAULT_SEED = 7;

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
    // A bug or an environment failure: the stack goes with the message.
    io.err(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return EXIT_FAILURE;
  }
}

/** Runs a command's `run*Cli` on this process's arguments and standard streams, and sets the exit code. */
export function runFromProcess(run: (argv: readonly string[], io: CliOutput) => Promise<number>): void {
  void run(process.argv.slice(2), { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) }).then((code) => {
    process.exitCode = code;
  });
}
