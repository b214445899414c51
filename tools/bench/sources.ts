import { buildService, checkOutBaseline, WORKING_TREE, type Runner, type ServiceSource } from './processes';

/** A checkout measured in the run, and the commit it holds (null: the working tree). */
export type MeasuredSource = ServiceSource & { commit: string | null };

export interface PreparedSources {
  /** How Switchyard's side runs: `prebuilt` once compiled from a checkout. */
  runner: Runner;
  /** tsc's time and type errors for Switchyard's side, when it was compiled. */
  build: { ms: number; warnings: string[] } | null;
  switchyard: MeasuredSource;
  baseline: (ServiceSource & { commit: string }) | null;
}

/**
 * Compiles the working tree, or with `ref` checks out and compiles that commit instead (`--switchyard-ref`:
 * an A/A run of the same commit on both sides, `--switchyard-ref HEAD --baseline HEAD`, or a run while
 * others change the working tree); and checks out and compiles the baseline, when asked. `removeLater`
 * hears of each checkout, to remove it whatever happens.
 */
export function prepareSources(options: {
  runner: Runner;
  scratch: string;
  ref?: string;
  baselineRef?: string;
  say: (text: string) => void;
  removeLater: (name: string, remove: () => void) => void;
}): PreparedSources {
  const { scratch, say } = options;
  const checkOut = (ref: string, folder: string) => {
    const source = checkOutBaseline(ref, scratch, folder);
    options.removeLater(`${folder} checkout`, () => source.remove());
    const built = buildService(source);
    say(`${folder} ${ref} (${source.commit.slice(0, 10)}) compiled in ${(built.ms / 1000).toFixed(1)} s`);
    return { source, built };
  };
  let build: PreparedSources['build'] = null;
  let switchyard: MeasuredSource = { ...WORKING_TREE, commit: null };
  let runner = options.runner;
  if (options.ref) {
    const { source, built } = checkOut(options.ref, 'switchyard');
    switchyard = source;
    build = built;
    runner = 'prebuilt';
  } else if (runner === 'build') {
    build = buildService();
    say(
      `compiled the service with tsc in ${(build.ms / 1000).toFixed(1)} s${build.warnings.length ? ` (type errors, emitted anyway: ${build.warnings.join(' | ')})` : ''}`,
    );
  }
  const baseline = options.baselineRef ? checkOut(options.baselineRef, 'baseline').source : null;
  return { runner, build, switchyard, baseline };
}
