import { Command } from 'commander';
import { registerBootstrapCommand } from './bootstrap-command';
import type { CliContext } from './context';
import { describeFailure, exitCodeFor, EXIT_OK } from './failure';
import { registerKeyCommands } from './keys-command';
import { registerLogCommands } from './logs-command';
import { registerModelCommands } from './models-command';
import { registerOrgCommands } from './orgs-command';
import { registerSpaceCommands } from './spaces-command';

/** The command tree; settings made here are inherited by every subcommand registered after them. */
export function buildProgram(ctx: CliContext): Command {
  const program = new Command('cli')
    .description(
      'Operator commands for Switchyard: organizations, Spaces, API keys, models and logs. Reads DATABASE_URL. ' +
        'Results go to stdout and everything else to stderr; through npm, use `npm run -s cli -- ...` so npm adds nothing to stdout.',
    )
    .configureOutput({ writeOut: (text) => ctx.io.out(text), writeErr: (text) => ctx.io.err(text) })
    .exitOverride()
    .showHelpAfterError('(add --help for usage)');
  registerBootstrapCommand(program, ctx);
  registerKeyCommands(program, ctx);
  registerSpaceCommands(program, ctx);
  registerOrgCommands(program, ctx);
  registerModelCommands(program, ctx);
  registerLogCommands(program, ctx);
  return program;
}

/** Runs one command line (without the node and script arguments) and answers the process exit code. */
export async function runCli(argv: readonly string[], ctx: CliContext): Promise<number> {
  let code = EXIT_OK;
  try {
    await buildProgram(ctx).parseAsync([...argv], { from: 'user' });
  } catch (err) {
    code = exitCodeFor(err);
    const message = describeFailure(err, ctx.session.verbose);
    if (message) ctx.io.err(message);
  }
  try {
    await ctx.session.close();
  } catch (err) {
    ctx.io.err(describeFailure(err, ctx.session.verbose) ?? '');
  }
  return code;
}
