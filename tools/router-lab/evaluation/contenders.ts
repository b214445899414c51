import { trainSwitchyardRouter } from '../learned/eval-router';
import { BASELINES } from './baselines';
import type { Contender } from './evaluate';

/** The name our router is reported under. */
export const SWITCHYARD = 'switchyard';

/** Every router `router:eval` and `router:cv` score: ours first, then the baselines. */
export const CONTENDERS: readonly Contender[] = [{ name: SWITCHYARD, train: trainSwitchyardRouter }, ...BASELINES];
