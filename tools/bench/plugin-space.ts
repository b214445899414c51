/**
 * The Space `bench:plugins` searches: a few small text files uploaded through the API (so ingestion,
 * chunking and embedding run as in production), ready before the load starts.
 */

const TOPICS = [
  [
    'electric cars',
    'An electric car charges from the grid; in winter the battery is slower to charge and its range drops by a fifth or more. Preconditioning the cabin while plugged in keeps the range up.',
  ],
  [
    'heat pumps',
    'A heat pump moves heat from the outside air into the house; its efficiency falls as the outside temperature drops, and a well insulated house needs a smaller one.',
  ],
  [
    'holiday policy',
    'Every employee has twenty-five days of paid leave a year; up to five unused days carry over to the next year and requests go to the team lead two weeks ahead.',
  ],
  [
    'expense reports',
    'Expenses are reported within thirty days with the receipts attached; travel by train is preferred to flights under four hours, and hotels are booked through the travel desk.',
  ],
] as const;

/** One file of a topic: its paragraph restated with numbered details, a few kB, so it makes several chunks. */
function fileText([topic, paragraph]: readonly [string, string]): string {
  const details = Array.from(
    { length: 12 },
    (_, i) => `Detail ${i + 1} about ${topic}: ${paragraph} This note (${i + 1}) also covers maintenance, costs and common questions about ${topic}.`,
  );
  return `# ${topic}\n\n${paragraph}\n\n${details.join('\n\n')}\n`;
}

interface SpaceFileView {
  id: string;
  status: string;
  error?: string | null;
}

async function upload(apiUrl: string, { apiKey, appId, name, text }: { apiKey: string; appId: string; name: string; text: string }): Promise<SpaceFileView> {
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'text/markdown' }), name);
  const res = await fetch(`${apiUrl}/v1/apps/${appId}/files`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: form });
  if (res.status !== 201) throw new Error(`upload of ${name} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return (await res.json()) as SpaceFileView;
}

async function waitReady(apiUrl: string, { apiKey, appId, fileId }: { apiKey: string; appId: string; fileId: string }): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await fetch(`${apiUrl}/v1/apps/${appId}/files/${fileId}`, { headers: { authorization: `Bearer ${apiKey}` } });
    const file = (await res.json()) as SpaceFileView;
    if (file.status === 'ready') return;
    if (file.status === 'failed') throw new Error(`file ${fileId} failed to ingest: ${file.error ?? ''}`);
    if (Date.now() > deadline) throw new Error(`file ${fileId} still ${file.status} after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Uploads the bench files to the Space and waits until every one is indexed; returns how many. */
export async function seedSpaceFiles(apiUrl: string, { apiKey, appId }: { apiKey: string; appId: string }): Promise<number> {
  const files = await Promise.all(TOPICS.map((topic, i) => upload(apiUrl, { apiKey, appId, name: `notes-${i + 1}.md`, text: fileText(topic) })));
  await Promise.all(files.map((file) => waitReady(apiUrl, { apiKey, appId, fileId: file.id })));
  return files.length;
}

/** Sets web-search's `fetch_pages` in the Space's settings (`--fetch-pages`). */
export async function setFetchPages(apiUrl: string, { apiKey, appId, fetchPages }: { apiKey: string; appId: string; fetchPages: number }): Promise<void> {
  const body = { id: appId, settings: { plugins: { 'web-search': { fetch_pages: fetchPages } } } };
  const res = await fetch(`${apiUrl}/v1/apps/update`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`setting fetch_pages answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
}

/** The question every client asks: both plugins find something for it. */
export const PLUGIN_BENCH_PROMPT = 'How fast does an electric vehicle charge in winter, and what does it cost?';
