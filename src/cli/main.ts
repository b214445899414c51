import { CliSession } from './context';
import { runCli } from './program';

/** Entry of `npm run cli`: the exit code is set, not forced, so stdout drains fully before the process ends. */
runCli(process.argv.slice(2), {
  session: new CliSession(),
  io: { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) },
}).then((code) => {
  process.exitCode = code;
});
