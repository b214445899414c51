import { loadEnvFile } from '../config/env-file';
import { CliSession } from './context';
import { runCli } from './program';

/** Entry of `npm run cli`: the exit code is set, not forced, so stdout drains fully before the process ends. */
loadEnvFile();
const stop = new AbortController();
// The first Ctrl-C ends a following command cleanly (its connections closed); a second one kills.
process.once('SIGINT', () => stop.abort());

runCli(process.argv.slice(2), {
  session: new CliSession(),
  signal: stop.signal,
  io: { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) },
}).then((code) => {
  process.exitCode = code;
});
