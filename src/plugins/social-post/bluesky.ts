import { createHash } from 'node:crypto';
import { z } from 'zod';
import { UpstreamError } from '../../errors/upstream-error';
import { endpoint, parseBody, type NetworkCall } from './call';
import { linkFacets } from './bluesky-facets';
import type { PublishedPost } from './mastodon';

export interface BlueskyAccount {
  network: 'bluesky';
  serviceUrl: string;
  identifier: string;
  appPassword: string;
}

const COLLECTION = 'app.bsky.feed.post';
/**
 * How long a session is reused, in ms. Access tokens last longer (about two hours), but
 * `createSession` is rate-limited per account (tens per five minutes, a few hundred a day), so one
 * session per post would lock a busy Space out; an expired one is replaced on the spot anyway.
 */
const SESSION_REUSE_MS = 30 * 60 * 1000;

const sessionSchema = z.object({ accessJwt: z.string().min(1), did: z.string().startsWith('did:'), handle: z.string().min(1) });
type Session = z.infer<typeof sessionSchema>;
const recordRefSchema = z.object({ uri: z.string().startsWith('at://'), cid: z.string().min(1) });

/** `https://bsky.app/profile/<handle>/post/<rkey>`, the address people open. */
export function postUrl(handleOrDid: string, rkey: string): string {
  return `https://bsky.app/profile/${encodeURIComponent(handleOrDid)}/post/${encodeURIComponent(rkey)}`;
}

function isExpiredSession(err: unknown): boolean {
  return err instanceof UpstreamError && (err.status === 401 || (err.status === 400 && /ExpiredToken|InvalidToken/.test(err.upstreamBody ?? '')));
}

/** Bluesky's AT Protocol calls, with sessions reused per account (in this process). */
export class BlueskyClient {
  private readonly sessions = new Map<string, { session: Session; until: number }>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** Creates the post under the record key `rkey` (a TID chosen by the caller). */
  async createPost(account: BlueskyAccount, { text, rkey }: { text: string; rkey: string }, call: NetworkCall): Promise<PublishedPost> {
    const record = { $type: COLLECTION, text, createdAt: new Date(this.clock()).toISOString(), facets: linkFacets(text) };
    return this.withSession(account, call, async (session) => {
      const response = await call.http({
        method: 'POST',
        url: endpoint(account.serviceUrl, '/xrpc/com.atproto.repo.createRecord'),
        headers: { authorization: `Bearer ${session.accessJwt}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ repo: session.did, collection: COLLECTION, rkey, record }),
        signal: call.signal,
        timeoutMs: call.timeoutMs,
        service: 'bluesky',
      });
      const ref = parseBody(response, recordRefSchema, 'bluesky');
      return { id: ref.uri, url: postUrl(session.handle, rkey) };
    });
  }

  /** The post under `rkey` if it exists: how a lost answer to createRecord is settled. */
  async findPost(account: BlueskyAccount, rkey: string, call: NetworkCall): Promise<PublishedPost | null> {
    return this.withSession(account, call, async (session) => {
      const query = new URLSearchParams({ repo: session.did, collection: COLLECTION, rkey });
      const response = await call.http({
        method: 'GET',
        url: `${endpoint(account.serviceUrl, '/xrpc/com.atproto.repo.getRecord')}?${query.toString()}`,
        headers: { authorization: `Bearer ${session.accessJwt}`, accept: 'application/json' },
        signal: call.signal,
        timeoutMs: call.timeoutMs,
        service: 'bluesky',
        acceptErrorStatus: true,
      });
      if (response.status === 400 && /RecordNotFound/.test(response.text())) return null;
      if (response.status === 404) return null;
      if (response.status < 200 || response.status >= 300) {
        throw new UpstreamError({
          kind: response.status >= 500 ? 'server_error' : 'bad_request',
          provider: 'bluesky',
          status: response.status,
          message: `bluesky answered HTTP ${response.status}`,
        });
      }
      const ref = parseBody(response, recordRefSchema, 'bluesky');
      return { id: ref.uri, url: postUrl(session.handle, rkey) };
    });
  }

  /** Runs `work` with a session, replacing an expired one once. */
  private async withSession<T>(account: BlueskyAccount, call: NetworkCall, work: (session: Session) => Promise<T>): Promise<T> {
    const key = sessionKey(account);
    const cached = this.sessions.get(key);
    if (cached && cached.until > this.clock()) {
      try {
        return await work(cached.session);
      } catch (err) {
        if (!isExpiredSession(err)) throw err;
        this.sessions.delete(key);
      }
    }
    const session = await this.createSession(account, call);
    this.sessions.set(key, { session, until: this.clock() + SESSION_REUSE_MS });
    return work(session);
  }

  private async createSession(account: BlueskyAccount, call: NetworkCall): Promise<Session> {
    const response = await call.http({
      method: 'POST',
      url: endpoint(account.serviceUrl, '/xrpc/com.atproto.server.createSession'),
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ identifier: account.identifier, password: account.appPassword }),
      signal: call.signal,
      timeoutMs: call.timeoutMs,
      service: 'bluesky',
    });
    return parseBody(response, sessionSchema, 'bluesky');
  }
}

/** Sessions are per account and password: a changed app password never reuses the old session. */
function sessionKey(account: BlueskyAccount): string {
  return createHash('sha256').update(`${account.serviceUrl}\0${account.identifier}\0${account.appPassword}`).digest('hex');
}
