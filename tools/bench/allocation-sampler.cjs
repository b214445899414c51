'use strict';
/**
 * Preloaded (`node --require`) into each process `npm run bench -- --allocations` measures. SIGUSR2
 * starts V8's sampling heap profiler, objects the garbage collector already took included (so it counts
 * what a process allocates, not what it keeps); the next SIGUSR2 stops it and writes the profile to
 * `$ALLOCATION_SAMPLER_DIR/<pid>-<n>.heapprofile`. V8 scales each sample to the bytes it stands for, so the
 * profile's sizes add up to an estimate of everything allocated between the two signals.
 */
const inspector = require('node:inspector');
const { renameSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const dir = process.env.ALLOCATION_SAMPLER_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  let sampling = false;
  let windows = 0;
  process.on('SIGUSR2', () => {
    if (!sampling) {
      sampling = true;
      session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      return;
    }
    sampling = false;
    windows += 1;
    const file = path.join(dir, `${process.pid}-${windows}.heapprofile`);
    // Written aside, then renamed: the profile appears whole or not at all.
    session.post('HeapProfiler.stopSampling', (err, result) => {
      writeFileSync(`${file}.part`, err ? JSON.stringify({ error: String(err) }) : JSON.stringify(result.profile));
      renameSync(`${file}.part`, file);
    });
  });
}
