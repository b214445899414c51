import { readFileSync } from 'node:fs';
import path from 'node:path';
import { STAGES, stageOf, type Stage } from './stages';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  /** µs on the monotonic clock, the one `process.hrtime` reads. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A stretch of time on the monotonic clock, in µs (`process.hrtime.bigint() / 1000n`). */
export type Window = [number, number];

export interface SelfTime {
  name: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  process: string;
  /** Sampled time that was not idle, in ms. */
  busyMs: number;
  topFunctions: SelfTime[];
  /** Self time grouped by package (node_modules/<name>), Node internals, GC, or the project's own folders. */
  byArea: SelfTime[];
  /**
   * Self time charged to the nearest project function (src/, workers/) on the sampled stack: what the
   * libraries spend on the project's behalf in synchronous calls. Work resumed from a promise or a socket
   * has no project frame above it and is charged to its area instead.
   */
  byProjectCaller: SelfTime[];
  /** Self time per stage of a completion (stages.ts), in ms: every sampled, non-idle ms is in exactly one. */
  byStageMs: Record<Stage, number>;
}

const IDLE = new Set(['(idle)', '(program)']);

function shortUrl(url: string, root: string): string {
  return url.replace(/^file:\/\//, '').replace(`${root}/`, '');
}

/** Which package or project folder a frame's code belongs to. */
function areaOf(frame: ProfileNode['callFrame'], root: string): string {
  if (frame.functionName === '(garbage collector)') return 'garbage collector';
  const url = shortUrl(frame.url, root);
  if (url === '') return 'native / V8';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0] === 'internal' ? (url.split('/')[1] ?? 'internal') : url.slice(5)}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg && !/(\.cache\/switchyard-bench|bench-build)\//.test(url)) return pkg[1] ?? 'node_modules';
  const own = url.replace(/^(node_modules\/\.cache\/switchyard-bench|bench-build)\//, '');
  const parts = own.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : (parts[0] ?? own);
}

const projectPath = (url: string, root: string) => shortUrl(url, root).replace(/^(node_modules\/\.cache\/switchyard-bench|bench-build)\//, '');
const isProjectFrame = (url: string, root: string) => /^(src|workers)\//.test(projectPath(url, root));

function frameName(frame: ProfileNode['callFrame'], root: string): string {
  const where = frame.url
    ? ` ${shortUrl(frame.url, root).replace(/^(node_modules\/\.cache\/switchyard-bench|bench-build)\//, '')}:${frame.lineNumber + 1}`
    : '';
  return `${frame.functionName || '(anonymous)'}${where}`;
}

/** The nearest project frame at or above a node, by walking up the call tree. */
function projectCaller(id: number, nodes: { byId: Map<number, ProfileNode>; parent: Map<number, number> }, root: string): ProfileNode | undefined {
  for (let current: number | undefined = id; current !== undefined; current = nodes.parent.get(current)) {
    const node = nodes.byId.get(current);
    if (node && isProjectFrame(node.callFrame.url, root)) return node;
  }
  return undefined;
}

const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);

function top(map: Map<string, number>, busyMs: number, limit: number): SelfTime[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, ms]) => ({ name, ms: Number(ms.toFixed(1)), share: Number((ms / busyMs).toFixed(3)) }));
}

/** Self time per function, per area and per project caller from a V8 `.cpuprofile` (as `node --cpu-prof` writes it). */
export function summariseProfile(file: string, { root, windows, limit = 20 }: { root: string; windows?: Window[]; limit?: number }): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfUs = new Map<number, number>();
  // Only samples inside the measured windows count: start-up (module loading) and warm-up are left out.
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (!windows || windows.some(([from, to]) => at >= from && at <= to)) selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });
  const functions = new Map<string, number>();
  const areas = new Map<string, number>();
  const callers = new Map<string, number>();
  const stages = Object.fromEntries(STAGES.map((stage) => [stage, 0])) as Record<Stage, number>;
  let busyMs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame || IDLE.has(frame.functionName)) continue;
    const ms = us / 1000;
    busyMs += ms;
    add(functions, frameName(frame, root), ms);
    const area = areaOf(frame, root);
    add(areas, area, ms);
    const caller = projectCaller(id, { byId, parent }, root);
    add(callers, caller ? frameName(caller.callFrame, root) : `(no project frame) ${area}`, ms);
    stages[stageOf({ projectFile: caller ? projectPath(caller.callFrame.url, root) : null, area })] += ms;
  }
  return {
    process: path.basename(file, '.cpuprofile'),
    busyMs: Number(busyMs.toFixed(1)),
    topFunctions: top(functions, busyMs, limit),
    byArea: top(areas, busyMs, limit),
    byProjectCaller: top(callers, busyMs, limit),
    byStageMs: stages,
  };
}
