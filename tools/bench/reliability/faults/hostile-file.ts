import { makeDocxBomb } from '../../../../test/fixtures/space-files/make-documents';
import { size, type Fault, type FaultContext } from '../fault';
import { trafficRow } from '../row';
import type { RowSpace } from '../spaces';
import { runUntil, sleep } from '../traffic';

/** Longest a hostile file may take to end `ready` or `failed`, in ms (the bomb fails in ~8 s of CPU at the 512 MiB default). */
const SETTLE_BOUND_MS = 60_000;

interface HostileFile {
  name: string;
  bytes: Buffer;
  /** How the file must end: the `{}` file is read fine now; the bomb fails past the heap limit. */
  expected: { status: 'ready' | 'failed'; error: RegExp | null };
}

const HOSTILE_FILES = (): HostileFile[] => [
  // 180 KB that ran a worker out of a 4 GB heap in 7 s (Intl.Segmenter), then the next worker too.
  { name: 'braces.txt', bytes: Buffer.from('{}\n'.repeat(60_000)), expected: { status: 'ready', error: null } },
  // 300 KB that unpacks to 53 MB of XML: more than the default 512 MiB heap once parsed.
  { name: 'bomb.docx', bytes: makeDocxBomb(1_000_000), expected: { status: 'failed', error: /needed more than the \d+ MiB of memory allowed/ } },
];

interface FileState {
  status: string;
  error: string | null;
}

async function upload(url: string, space: RowSpace, file: HostileFile): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([file.bytes]), file.name);
  const res = await fetch(`${url}/v1/apps/${space.appId}/files`, { method: 'POST', headers: { authorization: `Bearer ${space.apiKey}` }, body: form });
  if (res.status !== 201) throw new Error(`upload of ${file.name} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return ((await res.json()) as { id: string }).id;
}

async function stateOf(url: string, space: RowSpace, id: string): Promise<FileState> {
  const res = await fetch(`${url}/v1/apps/${space.appId}/files/${id}`, { headers: { authorization: `Bearer ${space.apiKey}` } });
  return (await res.json()) as FileState;
}

const alive = (ctx: FaultContext) => ctx.stack.workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null).map((w) => w.child.pid);

/**
 * Hostile Space files uploaded while completions run on the same worker processes: each file is read
 * in a child process bounded in heap and time (SPACE_FILE_INGEST_HEAP_MB, SPACE_FILE_INGEST_TIMEOUT_MS),
 * so no worker process dies, every completion is answered, and each file ends as expected within the bound.
 */
export const hostileFile: Fault = {
  name: 'hostile file',
  summary: 'Space files that killed workers (60,000 `{}` lines) or expand past the heap limit (a DOCX bomb) are uploaded while 4 clients send completions.',
  run: async (ctx) => {
    const space = await ctx.createSpace({ row: 'hostile file', models: [{ role: 'steady', quality: 0.9 }] });
    const url = ctx.stack.liveApiUrls()[0] ?? '';
    const pidsBefore = alive(ctx);
    const files = HOSTILE_FILES().slice(0, size(ctx, 2, 2));
    const uploadedAt = Date.now();
    const ids = await Promise.all(files.map((file) => upload(url, space, file)));
    const settled = new Map<string, { state: FileState; seconds: number }>();
    const watching = (async () => {
      while (settled.size < ids.length && Date.now() - uploadedAt < SETTLE_BOUND_MS) {
        for (const id of ids.filter((i) => !settled.has(i))) {
          const state = await stateOf(url, space, id);
          if (state.status === 'ready' || state.status === 'failed') settled.set(id, { state, seconds: (Date.now() - uploadedAt) / 1000 });
        }
        await sleep(100);
      }
    })();
    const client = ctx.client(space);
    const completions = await runUntil(
      { concurrency: 4, maxJobs: size(ctx, 2000, 1000), stop: () => settled.size === ids.length || Date.now() - uploadedAt > SETTLE_BOUND_MS },
      (i) => client.complete(`hostile-file-${i}`, { timeoutMs: 30_000 }),
    );
    await watching;
    const pidsAfter = alive(ctx);
    const unexpected = files.filter((file, i) => {
      const end = settled.get(ids[i] ?? '')?.state;
      return !end || end.status !== file.expected.status || (file.expected.error ? !file.expected.error.test(end.error ?? '') : end.error !== null);
    });
    return trafficRow('hostile file', completions, {
      lostLogs: await ctx.lostLogs(completions.map((c) => c.logId)),
      callsPerRequest: null,
      other: {
        'worker processes died': pidsBefore.filter((pid) => !pidsAfter.includes(pid)).length,
        'files not settled in 60 s': ids.length - settled.size,
        'files not ending as expected': unexpected.length,
        'max settle s': Number(Math.max(0, ...[...settled.values()].map((s) => s.seconds)).toFixed(1)),
      },
      notes: [
        ...files.map((file, i) => {
          const end = settled.get(ids[i] ?? '');
          return `${file.name} (${Math.round(file.bytes.length / 1024)} KB): ${end ? `${end.state.status} after ${end.seconds.toFixed(1)} s${end.state.error ? ` (${end.state.error})` : ''}` : 'not settled'}`;
        }),
        `${pidsBefore.length} worker processes; 4 clients send completions until both files settle`,
      ],
    });
  },
};
