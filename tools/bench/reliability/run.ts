import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { uniqueSuffix } from '../../../test/helpers/test-database';
import { ROOT } from '../processes';
import { Cleanups } from './cleanup';
import { ApiClient } from './completions';
import { createEnvironment } from './environment';
import type { FaultContext } from './fault';
import { FAULTS } from './faults/index';
import { lostLogs } from './logs';
import { machineInfo } from './machine';
import { notesOf, rowsTable, verdictsTable } from './report';
import type { Row } from './row';
import { buildService, removeBuild, ServiceProcesses, tailOf } from './service';
import { createRowSpace } from './spaces';
import { Stack } from './stack';
import { judge } from './targets';
import { runCount } from './traffic';
import { Upstream } from './upstream';

/**
 * `npm run reliability`: the service (two API and two worker processes, compiled) against the provider
 * simulator, one row per fault, and the targets checked. Options: --short (CI: the same rows but those
 * marked `skippedInShortRun`, smaller counts),
 * --report-only (exit 0 even when a target is missed), --rows 500,hang (only these rows), --runner build|tsx,
 * --out <file.json> (the rows, verdicts and machine as JSON).
 */
const { values: args } = parseArgs({
  options: {
    short: { type: 'boolean', default: false },
    'report-only': { type: 'boolean', default: false },
    rows: { type: 'string' },
    runner: { type: 'string', default: 'build' },
    out: { type: 'string' },
  },
});

const say = (text: string) => process.stdout.write(`${text}\n`);

const cleanups = new Cleanups(say);
cleanups.onSignals();

function selectedFaults() {
  if (!args.rows) {
    if (!args.short) return FAULTS;
    for (const fault of FAULTS.filter((f) => f.skippedInShortRun)) say(`${fault.name}: not in the short run (${fault.skippedInShortRun ?? ''})`);
    return FAULTS.filter((f) => !f.skippedInShortRun);
  }
  const wanted = args.rows.split(',').map((name) => name.trim().toLowerCase());
  const chosen = FAULTS.filter((f) => wanted.includes(f.name.toLowerCase()));
  if (chosen.length !== wanted.length) throw new Error(`unknown row in --rows; the rows are: ${FAULTS.map((f) => f.name).join(', ')}`);
  return chosen;
}

/**
 * A few healthy requests through every API and worker process before the first row, so that row's latency
 * is not the processes' first-request cost (JIT, connection pools, first Space load).
 */
async function warmUp(ctx: FaultContext): Promise<void> {
  const space = await ctx.createSpace({ row: 'warm-up', models: [{ role: 'healthy', quality: 0.9 }] });
  const client = ctx.client(space);
  const warm = await runCount(32, 8, (i) => client.complete(`warm-up-${i}`, { stream: i % 2 === 1, timeoutMs: 30_000 }));
  ctx.upstream.reset();
  const failures = warm.filter((c) => !c.ok).length;
  if (failures > 0)
    say(`warm-up: ${failures} of ${warm.length} healthy requests failed (${warm.find((c) => !c.ok)?.error ?? warm.find((c) => !c.ok)?.body.slice(0, 200)})`);
}

async function main(): Promise<number> {
  const started = Date.now();
  const faults = selectedFaults();
  const machine = machineInfo();
  say(`Switchyard fault suite${args.short ? ' (short)' : ''} on ${machine.cpu_model} × ${machine.cores}, Node ${machine.node}`);
  const suffix = uniqueSuffix();
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'switchyard-reliability-'));
  cleanups.push('scratch folder', async () => rmSync(scratch, { recursive: true, force: true }));
  let command = [process.execPath, '--import', 'tsx', path.join(ROOT, 'src/main.ts')];
  if (args.runner !== 'tsx') {
    const build = buildService(suffix);
    cleanups.push('compiled service', async () => removeBuild(build.dir));
    command = [process.execPath, build.entry];
    say(
      `compiled the service in ${(build.ms / 1000).toFixed(1)} s${build.warnings.length ? ` (type errors, emitted anyway: ${build.warnings.join(' | ')})` : ''}`,
    );
  }
  const env = await createEnvironment(suffix);
  cleanups.push('database and Redis keys', () => env.destroy());
  const upstream = await Upstream.start();
  cleanups.push('simulator', () => upstream.close());
  const processes = new ServiceProcesses({ command, env: Stack.environmentFor(env, upstream), logDir: scratch });
  const stack = new Stack(processes);
  cleanups.push('service processes', () => stack.stop());
  // Rows with a stack of their own (the Redis Cluster row) need none of the shared one.
  const sharedStack = faults.some((f) => f.stack !== 'own');
  if (sharedStack) {
    await stack.start();
    say(
      `2 API and 2 worker processes ready after ${((Date.now() - started) / 1000).toFixed(1)} s (database ${env.databaseName}, Redis prefix ${env.redisPrefix})`,
    );
  }

  const ctx: FaultContext = {
    short: args.short ?? false,
    env,
    db: env.db,
    upstream,
    stack,
    createSpace: (setup) => createRowSpace(env.db, stack.liveApiUrls()[0] ?? '', setup),
    client: (space) => new ApiClient(() => stack.liveApiUrls(), space.apiKey),
    lostLogs: async (logIds, graceMs = 5000) =>
      (
        await lostLogs(
          env.db,
          logIds.filter((id): id is string => id !== null),
          graceMs,
        )
      ).length,
    say,
    command,
    scratch,
    cleanup: (name, run) => cleanups.push(name, run),
  };
  if (sharedStack) await warmUp(ctx);
  const rows: Row[] = [];
  const failed: string[] = [];
  for (const fault of faults) {
    if (cleanups.stopping) break;
    const rowStarted = Date.now();
    say(`\n${fault.name}: ${fault.summary}`);
    try {
      const row = await fault.run(ctx);
      rows.push(row);
      say(
        `  ${row.sent} sent, ${row.answered} answered, ${row.ok} ok, ${row.fiveXx} 5xx, lost logs ${row.lostLogs ?? '–'}, calls/req ${row.callsPerRequest ?? '–'}, p50 ${row.p50Ms ?? '–'} ms, p99 ${row.p99Ms ?? '–'} ms (${((Date.now() - rowStarted) / 1000).toFixed(1)} s)`,
      );
    } catch (err) {
      if (cleanups.stopping) break;
      failed.push(fault.name);
      say(`  row failed: ${err instanceof Error ? err.stack : String(err)}`);
      for (const proc of [...stack.apis, ...stack.workers]) say(`--- ${proc.name} ---\n${tailOf(proc.logFile, 8)}`);
    }
    upstream.reset();
    if (cleanups.stopping) break;
    // A process that died outside the kill rows is a finding, and the next rows need it back.
    for (const proc of [...stack.apis, ...stack.workers]) {
      if (proc.child.exitCode === null && proc.child.signalCode === null) continue;
      say(`  ${proc.name} exited (${proc.child.exitCode ?? proc.child.signalCode}) during "${fault.name}": restarting it\n${tailOf(proc.logFile, 8)}`);
      await stack.replace(proc);
    }
  }

  const verdicts = judge(rows, failed, { short: ctx.short });
  const missed = verdicts.filter((v) => !v.met);
  say(`\n${rowsTable(rows)}\n\nTargets:\n${verdictsTable(verdicts)}\n\nNotes:\n${notesOf(rows)}`);
  say(
    `\nmachine: ${machine.cpu_model} × ${machine.cores}, ${machine.memory_gib} GiB, ${machine.os}, Node ${machine.node}, ${machine.date}, load average at start ${machine.load_average_at_start.join(' ')}`,
  );
  if (failed.length > 0) say(`rows that failed to run: ${failed.join(', ')}`);
  say(`${missed.length === 0 ? 'every target met' : `${missed.length} target(s) missed`} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  if (args.out)
    writeFileSync(
      args.out,
      `${JSON.stringify({ machine, short: ctx.short, rows, verdicts: verdicts.map((v) => ({ fault: v.target.fault, rule: v.target.rule, measured: v.measured, met: v.met })), failed }, null, 2)}\n`,
    );
  const violated = missed.length > 0 || failed.length > 0;
  return violated && !args['report-only'] ? 1 : 0;
}

main()
  .then((code) => {
    process.exitCode = code;
  })
  .catch((err: unknown) => {
    say(`fault suite failed: ${err instanceof Error ? err.stack : String(err)}`);
    process.exitCode = 1;
  })
  .finally(() => cleanups.runAll());
