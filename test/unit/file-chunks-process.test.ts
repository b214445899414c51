import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { chunkText } from '../../src/services/space-files/chunk-text';
import { chunksInChildProcess, ReaderStderr } from '../../src/services/space-files/file-chunks-process';
import { makeDocx, makeDocxBomb, makePdf } from '../fixtures/space-files/make-documents';

const LIMITS = { heapMb: 256, timeoutMs: 30_000 };
const BRACES = Buffer.from('{}\n'.repeat(60_000));

/** Processes whose parent is this one (the readers this file starts, if any outlive their call), but `ps` itself. */
function childPids(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([pid, command]) => pid && command !== 'ps')
    .map(([pid]) => Number(pid));
}

describe('chunksInChildProcess', () => {
  it('extracts and chunks each kind as the in-process code does', async () => {
    expect(await chunksInChildProcess({ kind: 'text', bytes: BRACES }, LIMITS)).toEqual(chunkText(BRACES.toString()));
    expect(await chunksInChildProcess({ kind: 'pdf', bytes: makePdf(['Inspect the cables weekly.']) }, LIMITS)).toEqual(['Inspect the cables weekly.']);
    expect(await chunksInChildProcess({ kind: 'docx', bytes: makeDocx(['Revenue rose.']) }, LIMITS)).toEqual(['Revenue rose.']);
    expect(await chunksInChildProcess({ kind: 'audio', bytes: Buffer.from('ID3') }, LIMITS)).toEqual([]);
    await expect(chunksInChildProcess({ kind: 'json', bytes: Buffer.from('{"open": ') }, LIMITS)).rejects.toThrow(/JSON/);
  });

  it('reads the 60,000 `{}` lines file, and ten times it, within a 64 MiB heap (the chunker is linear in memory)', async () => {
    const tight = { heapMb: 64, timeoutMs: 30_000 };
    expect(await chunksInChildProcess({ kind: 'text', bytes: BRACES }, tight)).toHaveLength(212);
    expect(await chunksInChildProcess({ kind: 'text', bytes: Buffer.from('{}\n'.repeat(600_000)) }, tight)).toHaveLength(2120);
  });

  it('fails a file whose reading blows past the heap limit, and this process carries on', async () => {
    // 300 KB that unpacks to 53 MB of XML, and several times that once parsed.
    const bomb = makeDocxBomb(1_000_000);
    await expect(chunksInChildProcess({ kind: 'docx', bytes: bomb }, { heapMb: 64, timeoutMs: 60_000 })).rejects.toThrow(
      'reading the file needed more than the 64 MiB of memory allowed',
    );
    expect(await chunksInChildProcess({ kind: 'text', bytes: Buffer.from('Still here.') }, LIMITS)).toEqual(['Still here.']);
  });

  it("tells each of V8's reports of running out of room, whichever the garbage collector's timing gives", () => {
    const reported = (...pieces: string[]) => {
      const stderr = new ReaderStderr();
      for (const piece of pieces) stderr.add(piece);
      return stderr.outOfMemory;
    };
    expect(reported('FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory')).toBe(true);
    expect(reported('#\n# Fatal process out of memory: Zone\n#')).toBe(true);
    expect(reported('#\n# Fatal error in , line 0\n# Fatal JavaScript invalid size error 536870888\n#')).toBe(true);
    expect(reported('Segmentation fault')).toBe(false);
    // Split across reads, or followed by a native stack longer than the tail kept: still told.
    expect(reported('FATAL ERROR: Reached heap limit Allocation fa', 'iled - JavaScript heap out of memory')).toBe(true);
    const stderr = new ReaderStderr();
    stderr.add('# Fatal process out of memory: Zone\n');
    for (let frame = 0; frame < 200; frame += 1) stderr.add(`    frame ${frame} at node::SomeNativeFunction(v8::Isolate*) [/usr/bin/node]\n`);
    expect(stderr.tail).not.toContain('out of memory');
    expect(stderr.tail.length).toBe(4096);
    expect(stderr.outOfMemory).toBe(true);
  });

  it('kills the reader at its deadline', async () => {
    const before = childPids();
    await expect(chunksInChildProcess({ kind: 'text', bytes: BRACES }, { heapMb: 64, timeoutMs: 20 })).rejects.toThrow(
      'reading the file took longer than the 20 ms allowed',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(childPids().filter((pid) => !before.includes(pid))).toEqual([]);
  });

  it('runs from compiled JavaScript, as dist/ does (no TypeScript loader)', async () => {
    // The folder compiled as `npm run build` compiles it; packages found through NODE_PATH.
    const source = join(__dirname, '../../src/services/space-files');
    const out = mkdtempSync(join(tmpdir(), 'space-files-js-'));
    try {
      for (const name of readdirSync(source).filter((file) => file.endsWith('.ts'))) {
        const compiled = ts.transpileModule(readFileSync(join(source, name), 'utf8'), {
          compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
        });
        writeFileSync(join(out, name.replace(/\.ts$/, '.js')), compiled.outputText);
      }
      const script = `
        const { chunksInChildProcess } = require(${JSON.stringify(join(out, 'file-chunks-process.js'))});
        const fail = (err) => err.message;
        Promise.all([
          chunksInChildProcess({ kind: 'text', bytes: Buffer.from('{}\\n'.repeat(60000)) }, { heapMb: 128, timeoutMs: 30000 }).then((c) => c.length, fail),
          chunksInChildProcess({ kind: 'text', bytes: Buffer.from('x') }, { heapMb: 128, timeoutMs: 5 }).then((c) => c.length, fail),
        ]).then((results) => console.log(JSON.stringify(results)));`;
      const env = { ...process.env, NODE_PATH: join(__dirname, '../../node_modules') };
      const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], { env });
      expect(JSON.parse(stdout)).toEqual([chunkText(BRACES.toString()).length, 'reading the file took longer than the 5 ms allowed']);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
