import { MASTER_SHARE_GOAL, OWN_COMMANDS_GOAL } from './commands-window';
import type { BaselineComparison, Cell, Comparison } from './report';

interface Target {
  target: number;
  measured: number | null;
  met: boolean | null;
}

export const check = (target: number, measured: number | undefined, atMost: boolean): Target => ({
  target,
  measured: measured === undefined ? null : Number(measured.toFixed(2)),
  met: measured === undefined ? null : atMost ? measured <= target : measured >= target,
});

/**
 * The goals the benchmark checks: issue 9's (added p50 at 1 client ≤ 3 ms, ≥ 1,500 completions/s at 64
 * clients) and issue 11's against the peer gateway (≥ 2× Portkey's completions/s at 64 clients, ≥ 1.5×
 * streaming, added p50 at 1 client ≤ 2 ms), all from cells of the same run.
 */
export function targetsOf(cells: Cell[], comparisons: Comparison[], peer: BaselineComparison[]): Record<string, Target> {
  const json1 = comparisons.find((c) => c.mode === 'json' && c.concurrency === 1);
  const json64 = cells.find((c) => c.path === 'switchyard' && c.mode === 'json' && c.concurrency === 64);
  const peerOf = (mode: string) => peer.find((c) => c.mode === mode && c.concurrency === 64);
  return {
    added_p50_ms_at_1_client: check(2, json1?.addedP50Ms, true),
    completions_per_second_at_64_clients: check(1500, json64?.result.rps, false),
    portkey_ratio_json_64_clients: check(2, peerOf('json')?.rpsRatio, false),
    portkey_ratio_stream_64_clients: check(1.5, peerOf('stream')?.rpsRatio, false),
  };
}

/**
 * From the counting window (commands-window.ts): issue 34's Switchyard's own Redis commands per completion
 * beyond BullMQ's job life (the Express floor's, same run) ≤ 5, and issue 22's no cluster master above 45%
 * of them.
 */
export function commandTargets({ beyondFloor, maxShare }: { beyondFloor: number | undefined; maxShare: number | undefined }): Record<string, Target> {
  return {
    redis_own_commands_per_completion: check(OWN_COMMANDS_GOAL, beyondFloor === undefined ? undefined : Math.round(beyondFloor * 100) / 100, true),
    ...(maxShare === undefined ? {} : { redis_max_master_share: check(MASTER_SHARE_GOAL, maxShare, true) }),
  };
}

export function targetsLine(targets: Record<string, Target>): string {
  const labels: Record<string, string> = {
    added_p50_ms_at_1_client: 'added p50 at 1 client ≤ 2 ms',
    completions_per_second_at_64_clients: '≥ 1500/s at 64 clients',
    portkey_ratio_json_64_clients: '≥ 2× Portkey at 64 clients (json)',
    portkey_ratio_stream_64_clients: '≥ 1.5× Portkey at 64 clients (stream)',
    redis_own_commands_per_completion: "Switchyard's own Redis commands per completion beyond the Express floor's ≤ 5",
    redis_max_master_share: 'busiest Redis master ≤ 0.45 of the commands',
  };
  return Object.entries(targets)
    .map(([key, t]) => `${labels[key] ?? key}: ${t.measured ?? '–'} (${t.met === null ? 'not measured' : t.met ? 'met' : 'NOT met'})`)
    .join('; ');
}
