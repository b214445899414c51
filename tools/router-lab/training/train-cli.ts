import { resolve } from 'node:path';
import { Command } from 'commander';
import { parseWholeNumber } from '../../../src/cli/options';
import { SHIPPED_WEIGHTS_SEED, SHIPPED_WEIGHTS_VERSION } from '../learned/router-version';
import { DEFAULT_WEIGHTS_FILE } from '../../../src/config/weights-location';
import { runTrain } from './train-command';

/** Entry of `npm run router:train`: rebuilds the shipped router weights from the shared routing sets. */
const program = new Command('router:train')
  .option('--data <dir>', 'folder of the routing sets', 'tools/router-lab/data/routing')
  .option('--out <file>', 'weights file to write', DEFAULT_WEIGHTS_FILE)
  .option('--seed <n>', 'training seed', parseWholeNumber, SHIPPED_WEIGHTS_SEED)
  .option('--weights-version <name>', 'version written into the file', SHIPPED_WEIGHTS_VERSION)
  .action((options: { data: string; out: string; seed: number; weightsVersion: string }) => {
    const started = Date.now();
    const summary = runTrain({ dataDir: resolve(options.data), out: resolve(options.out), seed: options.seed, version: options.weightsVersion });
    process.stdout.write(`${JSON.stringify({ out: options.out, version: options.weightsVersion, ...summary, seconds: (Date.now() - started) / 1000 })}\n`);
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`router:train: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
});
