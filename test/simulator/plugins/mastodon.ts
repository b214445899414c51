import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../http';
import { applyFault, FaultScript } from './faults';
import { listen, readBody, type RecordedSocialRequest } from './social-server';

/**
 * A Mastodon instance's `POST /api/v1/statuses`: Bearer token checked, JSON or form body, the
 * 500-character limit, `Idempotency-Key` honoured per token (a repeat returns the status already made),
 * Mastodon's `{ "error": ... }` bodies. Faults from a FaultScript; `loseAnswers` makes the next
 * posts succeed and then never answer (a call whose outcome the client cannot know).
 */
export interface MastodonStatus {
  id: string;
  uri: string;
  url: string;
  content: string;
  visibility: string;
  created_at: string;
}

export interface MastodonSimulator {
  url: string;
  faults: FaultScript;
  requests: RecordedSocialRequest[];
  statuses: MastodonStatus[];
  /** The next `n` posts are made, then their answer never comes. */
  loseAnswers(n: number): void;
  /** The status length this instance allows and announces in `GET /api/v2/instance` (default 500). */
  setMaxCharacters(max: number): void;
  close(): Promise<void>;
}

export async function startMastodonSimulator({ token }: { token: string }): Promise<MastodonSimulator> {
  const faults = new FaultScript();
  const requests: RecordedSocialRequest[] = [];
  const statuses: MastodonStatus[] = [];
  const byKey = new Map<string, MastodonStatus>();
  let toLose = 0;
  let origin = '';
  let maxCharacters = 500;

  function create(body: { status?: unknown; visibility?: unknown }): MastodonStatus | { error: string; code: number } {
    if (typeof body.status !== 'string' || body.status.trim() === '') return { code: 422, error: "Validation failed: Text can't be blank" };
    if (Array.from(body.status).length > maxCharacters) return { code: 422, error: `Validation failed: Text character limit of ${maxCharacters} exceeded` };
    const id = String(110_000_000_000_000_000n + BigInt(statuses.length + 1));
    const status = {
      id,
      uri: `${origin}/users/sim/statuses/${id}`,
      url: `${origin}/@sim/${id}`,
      content: `<p>${body.status}</p>`,
      visibility: String(body.visibility ?? 'public'),
      created_at: new Date().toISOString(),
    };
    statuses.push(status);
    return status;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The public instance document: no token, and outside the fault script (faults are for the post).
    if (req.method === 'GET' && req.url === '/api/v2/instance') {
      return sendJson(res, {
        status: 200,
        body: { domain: new URL(origin).host, configuration: { statuses: { max_characters: maxCharacters, max_media_attachments: 4 } } },
      });
    }
    const body = (await readBody(req)) as { status?: unknown; visibility?: unknown };
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
    const outcome = await applyFault(faults.next(), res, { req, errorBody: (status) => ({ error: `Simulated HTTP ${status}` }) });
    if (outcome === 'handled') return;
    if (req.method !== 'POST' || req.url !== '/api/v1/statuses') return sendJson(res, { status: 404, body: { error: 'Record not found' } });
    if (req.headers.authorization !== `Bearer ${token}`) return sendJson(res, { status: 401, body: { error: 'The access token is invalid' } });
    const key = req.headers['idempotency-key'];
    const repeated = typeof key === 'string' ? byKey.get(key) : undefined;
    const made = repeated ?? create(body);
    if ('error' in made) return sendJson(res, { status: made.code, body: { error: made.error } });
    if (typeof key === 'string') byKey.set(key, made);
    if (toLose > 0) {
      toLose -= 1;
      return applyFault({ kind: 'timeout' }, res, { req, errorBody: () => ({}) }).then(() => undefined);
    }
    sendJson(res, { status: 200, body: made });
  }

  const server = await listen(handle);
  origin = server.url;
  return {
    url: server.url,
    faults,
    requests,
    statuses,
    loseAnswers: (n) => (toLose = n),
    setMaxCharacters: (max) => (maxCharacters = max),
    close: server.close,
  };
}
