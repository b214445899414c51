import type { BenchEnvironment } from './environment';
import type { Path } from './report';
import { startQueueFloor, type FloorEdge, type QueueFloor } from './queue-floor/start';

/** The path each floor is measured as. */
export const FLOOR_PATHS: Record<FloorEdge, Path> = { node: 'floor', express: 'express-floor' };

/** `--floor queue,express` (the default), one of them, or `none`. */
export function floorEdges(option: string | undefined): FloorEdge[] {
  const names = (option ?? '').split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !['queue', 'express', 'none', ''].includes(name));
  if (unknown.length > 0) throw new Error(`--floor: unknown floor ${unknown.join(', ')} (queue, express or none)`);
  return [...(names.includes('queue') ? ['node' as const] : []), ...(names.includes('express') ? ['express' as const] : [])];
}

/** Starts the floors one after the other (their workers create the log table); `started` hears of each. */
export async function startFloors(env: BenchEnvironment, upstreamBaseUrl: string, { edges, started }: { edges: FloorEdge[]; started: (floor: QueueFloor) => void }): Promise<QueueFloor[]> {
  const floors: QueueFloor[] = [];
  for (const edge of edges) {
    const floor = await startQueueFloor(env, upstreamBaseUrl, { edge });
    started(floor);
    floors.push(floor);
  }
  return floors;
}
