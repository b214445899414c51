import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../http';
import { applyFault, FaultScript } from './faults';
import { listen, readBody, type RecordedSocialRequest } from './social-server';

/**
 * A PDS speaking the three XRPC calls the plugin uses: `com.atproto.server.createSession`
 * (identifier + app password → accessJwt, did, handle), `com.atproto.repo.createRecord` (Bearer
 * checked; `app.bsky.feed.post` with `$type`, `text` ≤ 300 graphemes and 3000 bytes, `createdAt`;
 * a taken rkey refused) and `com.atproto.repo.getRecord` (`RecordNotFound` when absent). Errors are
 * XRPC's `{ error, message }`. Faults from a FaultScript; `expireSessions` makes issued tokens answer
 * `ExpiredToken`; `loseAnswers` makes the next records be created and then never answered.
 */
export interface BlueskyRecord {
  rkey: string;
  uri: string;
  cid: string;
  value: { $type?: string; text?: string; createdAt?: string; facets?: unknown };
}

export interface BlueskySimulator {
  url: string;
  did: string;
  handle: string;
  faults: FaultScript;
  requests: RecordedSocialRequest[];
  records: BlueskyRecord[];
  sessionsCreated(): number;
  expireSessions(): void;
  loseAnswers(n: number): void;
  close(): Promise<void>;
}

const COLLECTION = 'app.bsky.feed.post';
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
type Reply = { status: number; body: unknown };
const xrpcError = (status: number, error: string, message: string): Reply => ({ status, body: { error, message } });

function recordProblem(value: BlueskyRecord['value']): string | null {
  if (value.$type !== COLLECTION) return 'Record/$type must be app.bsky.feed.post';
  if (typeof value.text !== 'string') return 'Record must have the property "text"';
  if (Array.from(segmenter.segment(value.text)).length > 300) return 'Record/text must not be longer than 300 graphemes';
  if (Buffer.byteLength(value.text) > 3000) return 'Record/text must not be longer than 3000 characters';
  if (typeof value.createdAt !== 'string' || Number.isNaN(Date.parse(value.createdAt))) return 'Record/createdAt must be an valid atproto datetime';
  return null;
}

export async function startBlueskySimulator({ identifier, password }: { identifier: string; password: string }): Promise<BlueskySimulator> {
  const did = 'did:plc:simulatedaccount00000000';
  const handle = identifier.startsWith('did:') ? 'sim.bsky.social' : identifier;
  const faults = new FaultScript();
  const requests: RecordedSocialRequest[] = [];
  const records: BlueskyRecord[] = [];
  const liveTokens = new Set<string>();
  const expiredTokens = new Set<string>();
  let sessions = 0;
  let toLose = 0;

  function auth(req: IncomingMessage): Reply | null {
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (expiredTokens.has(token)) return xrpcError(400, 'ExpiredToken', 'Token has expired');
    if (!liveTokens.has(token)) return xrpcError(401, 'AuthenticationRequired', 'Invalid token');
    return null;
  }

  function createSession(body: { identifier?: unknown; password?: unknown }): Reply {
    if ((body.identifier !== identifier && body.identifier !== did) || body.password !== password)
      return xrpcError(401, 'AuthenticationRequired', 'Invalid identifier or password');
    sessions += 1;
    const accessJwt = `sim-access-${randomUUID()}`;
    liveTokens.add(accessJwt);
    return { status: 200, body: { accessJwt, refreshJwt: `sim-refresh-${randomUUID()}`, handle, did, active: true } };
  }

  function createRecord(body: { repo?: unknown; collection?: unknown; rkey?: unknown; record?: BlueskyRecord['value'] }): Reply {
    if (body.repo !== did && body.repo !== handle) return xrpcError(400, 'InvalidRequest', 'Input/repo must be the authenticated account');
    if (body.collection !== COLLECTION) return xrpcError(400, 'InvalidRequest', 'Unsupported collection');
    const problem = recordProblem(body.record ?? {});
    if (problem) return xrpcError(400, 'InvalidRequest', `Invalid app.bsky.feed.post record: ${problem}`);
    const rkey = typeof body.rkey === 'string' ? body.rkey : `3sim${records.length}`;
    if (records.some((r) => r.rkey === rkey)) return xrpcError(400, 'InvalidRequest', 'Record already exists');
    const cid = `bafyrei${createHash('sha256').update(JSON.stringify(body.record)).digest('hex').slice(0, 40)}`;
    const record = { rkey, uri: `at://${did}/${COLLECTION}/${rkey}`, cid, value: body.record ?? {} };
    records.push(record);
    return { status: 200, body: { uri: record.uri, cid, commit: { cid, rev: `3sim${records.length}` }, validationStatus: 'valid' } };
  }

  function getRecord(query: URLSearchParams): Reply {
    const found = records.find((r) => r.rkey === query.get('rkey') && query.get('collection') === COLLECTION);
    if (!found) return xrpcError(400, 'RecordNotFound', `Could not locate record: at://${query.get('repo')}/${query.get('collection')}/${query.get('rkey')}`);
    return { status: 200, body: { uri: found.uri, cid: found.cid, value: found.value } };
  }

  function route(req: IncomingMessage, body: Record<string, unknown>): Reply {
    const url = new URL(req.url ?? '/', 'http://sim');
    if (req.method === 'POST' && url.pathname === '/xrpc/com.atproto.server.createSession') return createSession(body);
    const denied = auth(req);
    if (url.pathname === '/xrpc/com.atproto.repo.createRecord' && req.method === 'POST') return denied ?? createRecord(body);
    if (url.pathname === '/xrpc/com.atproto.repo.getRecord' && req.method === 'GET') return denied ?? getRecord(url.searchParams);
    return xrpcError(501, 'MethodNotImplemented', 'Method Not Implemented');
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = (await readBody(req)) as Record<string, unknown>;
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
    const outcome = await applyFault(faults.next(), res, {
      req,
      errorBody: (status) => ({ error: status >= 500 ? 'InternalServerError' : 'InvalidRequest', message: `Simulated HTTP ${status}` }),
    });
    if (outcome === 'handled') return;
    const reply = route(req, body);
    if (reply.status === 200 && req.url?.startsWith('/xrpc/com.atproto.repo.createRecord') && toLose > 0) {
      toLose -= 1;
      await applyFault({ kind: 'timeout' }, res, { req, errorBody: () => ({}) });
      return;
    }
    sendJson(res, reply);
  }

  const server = await listen(serve);
  return {
    url: server.url,
    did,
    handle,
    faults,
    requests,
    records,
    sessionsCreated: () => sessions,
    expireSessions: () => {
      liveTokens.forEach((token) => expiredTokens.add(token));
      liveTokens.clear();
    },
    loseAnswers: (n) => (toLose = n),
    close: server.close,
  };
}
