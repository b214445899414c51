import type { RoundTripsBySide } from './redis-round-trips';
import { table, type Mode, type Path } from './report';

/** Issue 20's limit on Redis round trips per completion at privacy level 1, each side. */
const LIMIT_PER_SIDE = 3;

function verdict(path: Path, trips: RoundTripsBySide): string {
  if (path !== 'switchyard' && path !== 'baseline') return '';
  return trips.api <= LIMIT_PER_SIDE && trips.worker <= LIMIT_PER_SIDE ? 'PASS' : 'MISS';
}

/**
 * One row per path and mode: commands per completion sent by the API and by the worker, the most frequent
 * named, and beside them the servers' own count of the window (Lua's commands included, every client's).
 */
export function roundTripsTable(rows: { path: Path; mode: Mode; trips: RoundTripsBySide }[]): string {
  return table(
    ['path', 'mode', 'API', 'worker', `≤ ${LIMIT_PER_SIDE} each (Switchyard)`, 'server commands (commandstats)', 'commands per completion'],
    rows.map(({ path, mode, trips }) => [
      path,
      mode,
      trips.api.toFixed(2),
      trips.worker.toFixed(2),
      verdict(path, trips),
      trips.serverCommands === undefined ? '–' : trips.serverCommands.toFixed(2),
      Object.entries(trips.commands)
        .filter(([, n]) => n >= 0.05)
        .map(([name, n]) => `${name} ${n}`)
        .join(', '),
    ]),
  );
}
