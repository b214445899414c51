import type { BenchEnvironment } from './environment';
import type { Path } from './report';
import { startQueueFloor, type FloorKind, type QueueFloor } from './queue-floor/start';

/** The path each floor is measured as. */
export const FLOOR_PATHS: Record<FloorKind, Path> = { queue: 'floor', express: 'express-floor', required: 'required-floor', configured: 'configured-floor' };

const KINDS: FloorKind[] = ['queue', 'express', 'required', 'configured'];

/** `--floor queue,express,required,configured` (the default), some of them, or `none`. */
export function floorKinds(option: string | undefined): FloorKind[] {
  const names = (option ?? '').split(',').map((name) => name.trim());
  const unknown = names.filter((name) => ![...KINDS, 'none', ''].includes(name));
  if (unknown.length > 0) throw new Error(`--floor: unknown floor ${unknown.join(', ')} (queue, express, required, configured or none)`);
  return KINDS.filter((kind) => names.includes(kind));
}

/**
 * Starts the floors one after the other (their workers create their log tables); `started` hears of each.
 * With `profileDir`, each floor process writes a CPU profile there (`<floor>-api/`, `<floor>-worker/`) when it stops.
 */
export async function startFloors(
  env: BenchEnvironment,
  upstreamBaseUrl: string,
  { kinds, started, profileDir, nodeArgs }: { kinds: FloorKind[]; started: (floor: QueueFloor) => void; profileDir?: string; nodeArgs?: string[] },
): Promise<QueueFloor[]> {
  const floors: QueueFloor[] = [];
  for (const kind of kinds) {
    const floor = await startQueueFloor(env, upstreamBaseUrl, { kind, ...(profileDir ? { profileDir } : {}), ...(nodeArgs ? { nodeArgs } : {}) });
    started(floor);
    floors.push(floor);
  }
  return floors;
}
