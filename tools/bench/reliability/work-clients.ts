import { tagText } from './completions';
import { send, type Exchange } from './http-client';
import { sleep } from './traffic';

/**
 * The service's long-lived work seen from a client, over its public API: an async chat completion
 * (`Prefer: respond-async`, `GET /v1/jobs/{id}`) and an OpenAI batch (`POST /v1/files`, `POST /v1/batches`,
 * the output file). Every call is bounded; a read that fails answers null rather than throwing, so a row can
 * keep polling through a fault.
 */
export interface ApiKeyed {
  apiUrl: string;
  apiKey: string;
}

const auth = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

function parsed<T>(exchange: Exchange): T | null {
  if (exchange.status !== 200 && exchange.status !== 202) return null;
  try {
    return JSON.parse(exchange.body) as T;
  } catch {
    return null;
  }
}

const getJson = <T>({ apiUrl, apiKey }: ApiKeyed, route: string) =>
  send({ method: 'GET', url: `${apiUrl}${route}`, headers: auth(apiKey), timeoutMs: 10_000, maxBody: 4 * 1024 * 1024 }).then((e) => parsed<T>(e));

export interface AsyncJob {
  id: string;
  status: string;
  response: { status_code: number; body: { choices?: { message?: { content?: string } }[] } } | null;
}

/** Queues an async completion carrying the tag; throws unless it is accepted (202). */
export async function createAsyncJob({ apiUrl, apiKey }: ApiKeyed, tag: string): Promise<AsyncJob> {
  const body = { messages: [{ role: 'user', content: `${tagText(tag)} Say hello before the fault.` }], custom_headers: { labels: { reliability: tag } } };
  const exchange = await send({
    method: 'POST',
    url: `${apiUrl}/v1/chat/completions`,
    headers: { ...auth(apiKey), 'content-type': 'application/json', prefer: 'respond-async' },
    body: JSON.stringify(body),
    timeoutMs: 10_000,
  });
  const job = parsed<AsyncJob>(exchange);
  if (exchange.status !== 202 || !job) throw new Error(`async completion answered ${exchange.status ?? exchange.error}: ${exchange.body.slice(0, 300)}`);
  return job;
}

export const readJob = (client: ApiKeyed, id: string) => getJson<AsyncJob>(client, `/v1/jobs/${id}`);

/** Polls until the job is no longer queued or running, or `timeoutMs` passed (then its last reading). */
export async function waitForJob(client: ApiKeyed, id: string, timeoutMs: number): Promise<AsyncJob | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await readJob(client, id);
    if ((job && !['queued', 'in_progress'].includes(job.status)) || Date.now() > deadline) return job;
    await sleep(100);
  }
}

export interface BatchState {
  id: string;
  status: string;
  output_file_id: string | null;
  error_file_id: string | null;
  request_counts: { total: number; completed: number; failed: number };
}

export const FINAL_BATCH_STATUSES = ['completed', 'failed', 'expired', 'cancelled'];

/** Uploads the JSONL lines as a batch input file and creates the batch; throws unless both are accepted. */
export async function submitBatch({ apiUrl, apiKey }: ApiKeyed, lines: string[]): Promise<BatchState> {
  const form = new FormData();
  form.append('purpose', 'batch');
  form.append('file', new Blob([`${lines.join('\n')}\n`], { type: 'application/jsonl' }), 'cluster-failover.jsonl');
  const upload = await fetch(`${apiUrl}/v1/files`, { method: 'POST', headers: auth(apiKey), body: form, signal: AbortSignal.timeout(10_000) });
  const uploadText = await upload.text();
  if (upload.status !== 200) throw new Error(`batch file upload answered ${upload.status}: ${uploadText.slice(0, 300)}`);
  const fileId = (JSON.parse(uploadText) as { id: string }).id;
  const create = await send({
    method: 'POST',
    url: `${apiUrl}/v1/batches`,
    headers: { ...auth(apiKey), 'content-type': 'application/json' },
    body: JSON.stringify({ input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    timeoutMs: 10_000,
  });
  const batch = parsed<BatchState>(create);
  if (create.status !== 200 || !batch) throw new Error(`batch create answered ${create.status ?? create.error}: ${create.body.slice(0, 300)}`);
  return batch;
}

export const readBatch = (client: ApiKeyed, id: string) => getJson<BatchState>(client, `/v1/batches/${id}`);

/**
 * Polls the batch (through each client in turn, so one dead API does not stop it) until it is final or
 * `until` (epoch ms) passed; the last reading either way, null if none answered.
 */
export async function waitForBatch(clients: () => ApiKeyed[], id: string, until: number): Promise<BatchState | null> {
  let last: BatchState | null = null;
  for (let turn = 0; ; turn += 1) {
    const list = clients();
    const client = list[turn % Math.max(1, list.length)];
    const batch = client ? await readBatch(client, id) : null;
    last = batch ?? last;
    if ((last && FINAL_BATCH_STATUSES.includes(last.status)) || Date.now() > until) return last;
    await sleep(250);
  }
}

/** A file's JSONL, line by line (empty when the file is absent or unreadable). */
export async function fileLines(client: ApiKeyed, fileId: string | null): Promise<{ custom_id?: string; response?: { status_code?: number } }[]> {
  if (!fileId) return [];
  const exchange = await send({
    method: 'GET',
    url: `${client.apiUrl}/v1/files/${fileId}/content`,
    headers: auth(client.apiKey),
    timeoutMs: 10_000,
    maxBody: 16 * 1024 * 1024,
  });
  if (exchange.status !== 200) return [];
  return exchange.body
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as { custom_id?: string; response?: { status_code?: number } }];
      } catch {
        return [];
      }
    });
}
