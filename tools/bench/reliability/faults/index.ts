import type { Fault } from '../fault';
import { apiKill } from './api-kill';
import { clusterFailover } from './cluster-failover';
import { cutStream } from './cut-stream';
import { deadPrimary } from './dead-primary';
import { fuzz } from './fuzz';
import { hang } from './hang';
import { hostileFile } from './hostile-file';
import { hostileText } from './hostile-text';
import { longWord } from './long-word';
import { ownership } from './ownership';
import { privacySwitch } from './privacy-switch';
import { reset } from './reset';
import { status429 } from './status-429';
import { status500 } from './status-500';
import { transient429, transient500, transientReset } from './transient';
import { workerKill } from './worker-kill';

/**
 * The rows of the table, in order. Fuzz comes last: its broken `Authorization` headers (one in 16) trip the
 * per-address failed-authentication throttle for 127.0.0.1 in the full run, and a key made after that (a
 * later row's Space) would be answered 429. The cluster row runs on a stack of its own (not in --short).
 */
export const FAULTS: Fault[] = [
  status500,
  status429,
  reset,
  transient500,
  transient429,
  transientReset,
  hang,
  cutStream,
  deadPrimary,
  workerKill,
  apiKill,
  privacySwitch,
  longWord,
  hostileText,
  hostileFile,
  ownership,
  clusterFailover,
  fuzz,
];
