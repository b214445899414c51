'use strict';
/**
 * Preloaded (`node --require`) into each process `npm run bench -- --allocations` measures. SIGUSR2
 * starts V8's sampling heap profiler, objects the garbage collector already took included (so it counts
 * what a process allocates, not what it keeps); the next SIGUSR2 stops it and writes the profile to
 * `$ALLOCATION_SAMPLER_DIR/<pid>-<n>.heapprofile`. V8 scales each sample to the bytes it stands for, so the
 * profile's sizes add up to an estimate of everything allocated between the two signals.
 *
 * With ALLOCATION_SAMPLER_PROMISES=1 (`--promises`), an async hook also counts, in the same window, the
 * promises the process creates (`promises` in the written profile): each is a few objects, a reaction and
 * a turn of the microtask queue, and their count points at the async layers a completion passes through.
 * A listening hook makes V8 report every promise, its `await`s' own included, and allocates for each: the
 * bytes of such a run are higher, so compare its figures only with runs measured the same way.
 */
const asyncHooks = require('node:async_hooks');
const inspector = require('node:inspector');
const { renameSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const dir = process.env.ALLOCATION_SAMPLER_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  let sampling = false;
  let windows = 0;
  let promises = 0;
  const counting = process.env.ALLOCATION_SAMPLER_PROMISES === '1';
  const counter = asyncHooks.createHook({
    init(_id, type) {
      if (type === 'PROMISE') promises += 1;
    },
  });
  process.on('SIGUSR2', () => {
    if (!sampling) {
      sampling = true;
      promises = 0;
      if (counting) counter.enable();
      session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      return;
    }
    sampling = false;
    if (counting) counter.disable();
    const counted = promises;
    windows += 1;
    const file = path.join(dir, `${process.pid}-${windows}.heapprofile`);
    // Written aside, then renamed: the profile appears whole or not at all.
    session.post('HeapProfiler.stopSampling', (err, result) => {
      writeFileSync(
        `${file}.part`,
        err ? JSON.stringify({ error: String(err) }) : JSON.stringify(counting ? { ...result.profile, promises: counted } : result.profile),
      );
      renameSync(`${file}.part`, file);
    });
  });
}
