import { runConvert } from './convert-command';

/** Entry of `npm run router:convert`: the exit code is set, not forced, so stdout drains fully first. */
process.exitCode = runConvert(process.argv.slice(2), { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) }, process.cwd());
