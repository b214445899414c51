import { distribution } from '../../stats';
import type { Completion } from '../completions';
import { size, type Fault, type FaultContext } from '../fault';
import { trafficRow } from '../row';
import { runCount, runUntil } from '../traffic';
import { stallsSince } from '../process-logs';

/**
 * A 900 KiB single word (no space in it, under the 1 MiB body limit) once cost minutes of worker CPU:
 * o200k byte-pair merging is quadratic in a word's length. While such requests keep arriving, ordinary
 * completions must keep their latency: their p99 within 2× of the same traffic's idle p99, measured in
 * the same row in phases that alternate with the loaded ones.
 */

/** Characters of the long word: 900 KiB of JSON body. */
const WORD_CHARS = 900 * 1024;
/** Idle and loaded phases alternate this many times, so a machine getting busier or quieter weighs on both alike. */
const ROUNDS = 4;
/** Ordinary completions sent first and not measured. */
const WARM_UP = 20;
/** Ordinary clients, in both phases. */
const CONCURRENCY = 4;
/**
 * The long words' answers are cut at this many words, as a model's answer is bounded by `max_tokens` (the
 * simulator would otherwise echo the 900 KiB back): what is measured is the cost of the input.
 */
const ANSWER_WORDS = 2;
/** Clients sending long words at once, each sending its next as soon as the last is answered. */
const LONG_CLIENTS = 1;

const p99 = (completions: Completion[]): number => distribution(completions.filter((c) => c.answered).map((c) => c.latencyMs)).p99;

async function longWordRow(ctx: FaultContext) {
  const startedAt = Date.now();
  const space = await ctx.createSpace({ row: 'long word', models: [{ role: 'healthy', quality: 0.9 }] });
  const client = ctx.client(space);
  const count = size(ctx, 800, 600);
  const ordinary = (phase: string) => (i: number) => client.complete(`long-word-${phase}-${i}`, { text: 'Say hello in five words.', timeoutMs: 30_000 });
  // Not measured: the Space's first requests load its configuration in every process.
  await runCount(WARM_UP, CONCURRENCY, ordinary('warm-up'));
  const word = 'a'.repeat(WORD_CHARS);
  ctx.say(
    `${ROUNDS} rounds of ${count / ROUNDS} ordinary completions idle, then ${count / ROUNDS} beside ${LONG_CLIENTS} client(s) sending ${WORD_CHARS / 1024} KiB words`,
  );
  const idle: Completion[] = [];
  const loaded: Completion[] = [];
  const long: Completion[] = [];
  let suiteCpuMs = 0;
  let loadedMs = 0;
  for (let round = 0; round < ROUNDS; round++) {
    idle.push(...(await runCount(count / ROUNDS, CONCURRENCY, ordinary(`idle-${round}`))));
    let loadedDone = false;
    const longWords = runUntil({ concurrency: LONG_CLIENTS, maxJobs: 1_000, stop: () => loadedDone }, (i) =>
      client.complete(`long-word-long-${round}-${i}`, { text: word, timeoutMs: 120_000, extra: { max_tokens: ANSWER_WORDS } }),
    );
    const suiteCpu = process.cpuUsage();
    const loadedStart = performance.now();
    loaded.push(...(await runCount(count / ROUNDS, CONCURRENCY, ordinary(`loaded-${round}`))));
    const suiteUsage = process.cpuUsage(suiteCpu);
    suiteCpuMs += (suiteUsage.user + suiteUsage.system) / 1000;
    loadedMs += performance.now() - loadedStart;
    loadedDone = true;
    long.push(...(await longWords));
  }
  const suiteShare = suiteCpuMs / loadedMs;
  const completions = [...loaded, ...long];
  const idleP99 = p99(idle);
  const loadedLatency = distribution(loaded.filter((c) => c.answered).map((c) => c.latencyMs));
  const row = trafficRow('long word', completions, {
    lostLogs: await ctx.lostLogs([...idle, ...completions].map((c) => c.logId)),
    callsPerRequest: null,
    other: {
      'idle p99 ms': Number(idleP99.toFixed(1)),
      'loaded p99 / idle p99': Number((loadedLatency.p99 / idleP99).toFixed(2)),
      'long words sent': long.length,
      'suite process CPU share, loaded': Number(suiteShare.toFixed(2)),
      'longest loop stall ms': Math.max(0, ...stallsSince(ctx, startedAt).map((stall) => stall.lag_ms ?? 0)),
      // The echo is cut to the client's 64 KiB body cap, so a whole 200 is all that can be checked.
      'long words answered 200': long.filter((c) => c.answered && c.status === 200).length,
      'ordinary not answered 200 in full': [...idle, ...loaded].filter((c) => !c.ok).length,
    },
    notes: [
      `${count} ordinary completions idle and ${count} beside ${long.length} single-word requests of ${WORD_CHARS} characters, in ${ROUNDS} alternating rounds; p50/p99 are the loaded ordinary ones`,
    ],
  });
  return { ...row, p50Ms: Number(loadedLatency.p50.toFixed(1)), p99Ms: Number(loadedLatency.p99.toFixed(1)) };
}

export const longWord: Fault = {
  name: 'long word',
  summary:
    'A client keeps sending 900 KiB single-word completions (quadratic to tokenize before) while ordinary completions run; their p99 is compared with their idle p99.',
  run: longWordRow,
};
