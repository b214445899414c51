import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Session } from 'node:inspector/promises';

/** The folders whose files are counted, relative to the repository root. */
export const COUNTED_FOLDERS = ['src', 'workers'];

/** One function of one script in V8's precise coverage (`detailed: false`: one range per function). */
interface CoveredFunction {
  functionName: string;
  ranges: { startOffset: number; endOffset: number; count: number }[];
}

interface ScriptCoverage {
  scriptId: string;
  url: string;
  functions: CoveredFunction[];
}

/** A window's coverage as V8 gave it: every script, with its functions' call counts since the last take. */
export type Coverage = ScriptCoverage[];

/**
 * V8 precise coverage through the inspector of this very process: the service runs in it, so one
 * coverage covers the API and the workers.
 */
export class CoverageWindow {
  private readonly sources = new Map<string, Promise<string>>();

  constructor(private readonly session: Session) {}

  static async start(session: Session): Promise<CoverageWindow> {
    await session.post('Profiler.enable');
    // Call counts, function granularity; starting it deoptimizes what ran before, so later counts are exact.
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    return new CoverageWindow(session);
  }

  /** The counts since the previous take (V8 resets them on each take): a take opens the next window. */
  async take(): Promise<Coverage> {
    const { result } = (await this.session.post('Profiler.takePreciseCoverage')) as unknown as { result: Coverage };
    return result;
  }

  /** The transpiled text V8 ran for a script (needs the debugger, enabled only after the windows). */
  sourceOf(scriptId: string): Promise<string> {
    let source = this.sources.get(scriptId);
    if (!source) {
      source = this.session.post('Debugger.getScriptSource', { scriptId }).then((answer) => (answer as { scriptSource: string }).scriptSource);
      this.sources.set(scriptId, source);
    }
    return source;
  }

  async enableSources(): Promise<void> {
    await this.session.post('Debugger.enable');
  }
}

/**
 * The repository path (`src/…/x.ts`) of a script V8 ran, or null when it is not under a counted folder:
 * tsx's scripts carry the `.ts` file's path (a `file://` URL when loaded through the ESM loader), a
 * compiled build's (`dist/src/…/x.js`) is mapped back to its source.
 */
export function repoPathOf(url: string, root: string): string | null {
  let file: string;
  try {
    file = url.startsWith('file://') ? fileURLToPath(url) : url;
  } catch {
    return null;
  }
  if (!path.isAbsolute(file)) return null;
  let relative = path.relative(root, file).split(path.sep).join('/');
  if (relative.startsWith('dist/')) relative = relative.slice('dist/'.length).replace(/\.js$/, '.ts');
  if (relative.startsWith('..') || !COUNTED_FOLDERS.some((folder) => relative.startsWith(`${folder}/`))) return null;
  return relative;
}

/** Where the statement starting at `from` ends (its `;` outside brackets and strings), or the text's end. */
function statementEnd(source: string, from: number): number {
  let depth = 0;
  for (let i = from; i < source.length; i += 1) {
    const c = source[i];
    if (c === '"' || c === "'" || c === '`') {
      for (i += 1; i < source.length && source[i] !== c; i += 1) if (source[i] === '\\') i += 1;
    } else if (c === '(' || c === '{' || c === '[') depth += 1;
    else if (c === ')' || c === '}' || c === ']') depth -= 1;
    else if (c === ';' && depth === 0) return i + 1;
  }
  return source.length;
}

/**
 * The parts of a script the transpiler wrote rather than the file's author, as offset ranges: esbuild's
 * helpers at its top (`var __export=…`, `var __copyProps=…`, whose getters `get:()=>from[key]` back
 * `module.exports`) and the export block (`__export(x_exports,{name:()=>name,…})`, one getter per
 * export). Another module reading one of the file's bindings calls these, and nothing of the author's:
 * a file whose only calls in a window are these was read (a constant, a schema, a re-export), not run.
 * A compiled build has plain properties there, so leaving them out keeps the count the same whichever
 * way the sources are run.
 */
export function transpilerRanges(source: string): [number, number][] {
  const ranges: [number, number][] = [];
  // The helpers are consecutive `var __x=…;` statements after the banner and "use strict".
  const first = source.search(/var __[\w$]+=/);
  for (let at = first; at !== -1 && /^var __[\w$]+=/.test(source.slice(at, at + 80));) {
    const end = statementEnd(source, at);
    ranges.push([at, end]);
    at = end;
  }
  for (const match of source.matchAll(/__export\([\w$]+_exports,\{/g)) {
    const end = source.indexOf('})', match.index);
    ranges.push([match.index, end === -1 ? match.index + match[0].length : end + 2]);
  }
  return ranges;
}

/** One of the author's functions that ran in a window. */
export interface CalledFunction {
  /** Its name (anonymous ones as `(anonymous)`). */
  name: string;
  /** Where it starts in the script V8 ran: with the file, the same function in every window. */
  offset: number;
  count: number;
}

/** A counted file's functions that ran in a window: the author's, and (apart) the transpiler's. */
export interface FileCalls {
  file: string;
  functions: CalledFunction[];
  /** Calls of the transpiler's export getters and helpers only. */
  bindingReads: number;
}

/** The counted files with at least one function called in the window (count > 0), by repository path. */
export async function filesRun(coverage: Coverage, root: string, window: CoverageWindow): Promise<Map<string, FileCalls>> {
  const files = new Map<string, FileCalls>();
  for (const script of coverage) {
    const file = repoPathOf(script.url, root);
    if (!file) continue;
    const called = script.functions.filter((fn) => (fn.ranges[0]?.count ?? 0) > 0);
    if (called.length === 0) continue;
    const helpers = transpilerRanges(await window.sourceOf(script.scriptId));
    const entry = files.get(file) ?? { file, functions: [], bindingReads: 0 };
    for (const fn of called) {
      const range = fn.ranges[0];
      if (!range) continue;
      // The module's own top-level code (a load inside the window) counts as the author's.
      const byTranspiler = range.startOffset > 0 && helpers.some(([start, end]) => range.startOffset >= start && range.endOffset <= end);
      if (byTranspiler) entry.bindingReads += range.count;
      else entry.functions.push({ name: fn.functionName || '(anonymous)', offset: range.startOffset, count: range.count });
    }
    files.set(file, entry);
  }
  return files;
}

/** The files whose own code ran (not only their export bindings read), sorted. */
export function runFiles(calls: Map<string, FileCalls>): string[] {
  return [...calls.values()]
    .filter((entry) => entry.functions.length > 0)
    .map((entry) => entry.file)
    .sort();
}

/** `file#offset` of every author's function that ran. */
export function functionKeys(calls: Map<string, FileCalls>): Set<string> {
  return new Set([...calls.values()].flatMap((entry) => entry.functions.map((fn) => `${entry.file}#${fn.offset}`)));
}

/**
 * The files with at least one of the author's functions that ran in the request's window and not in
 * the idle window: a timer's function is left out, not its whole file (a file on the path may also
 * hold a timer, e.g. the circuit breakers' flush beside `admit` and `record`).
 */
export function filesBeyond(calls: Map<string, FileCalls>, idle: Set<string>): string[] {
  return [...calls.values()]
    .filter((entry) => entry.functions.some((fn) => !idle.has(`${entry.file}#${fn.offset}`)))
    .map((entry) => entry.file)
    .sort();
}

/** Files grouped by folder, folders and files sorted. */
export function byFolder(files: string[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const file of [...files].sort()) {
    const folder = path.posix.dirname(file);
    groups.set(folder, [...(groups.get(folder) ?? []), path.posix.basename(file)]);
  }
  return new Map([...groups.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

/** The list as printed: `folder/ (n)` then its files, indented. */
export function formatGrouped(files: string[]): string {
  const lines: string[] = [];
  for (const [folder, names] of byFolder(files)) {
    lines.push(`  ${folder}/ (${names.length})`);
    for (const name of names) lines.push(`    ${name}`);
  }
  return lines.join('\n');
}
