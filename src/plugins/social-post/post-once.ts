import type { Logger } from 'pino';
import { UpstreamError } from '../../errors/upstream-error';
import type { Db } from '../../store/db';
import { socialPostStore, type SocialPostRow } from '../../store/social-posts';
import type { SocialAccount } from './accounts';
import type { BlueskyClient } from './bluesky';
import type { NetworkCall } from './call';
import { MASTODON_IDEMPOTENCY_WINDOW_MS, postToMastodon, type PublishedPost } from './mastodon';
import { newTid } from './tid';

/**
 * One post per request id. The row in `social_posts` is written before the network is called
 * (insert-before-post; the primary key lets one run win), so a retried step or a job run twice
 * finds it:
 * - `posted`: the post is returned, the network is not called again;
 * - `failed` (the network refused with a 4xx: nothing was posted): posted again, same key;
 * - `pending` (a run crashed or lost the answer: outcome unknown): never resent blindly. A row still
 *   fresh may belong to a run in flight, so this attempt fails (retryable) and leaves it alone. An
 *   older one is settled on the network's side: Mastodon returns the status already made for the
 *   same Idempotency-Key (kept an hour; past that we refuse rather than risk a double post); Bluesky
 *   is asked whether the record under the key we chose exists, and only if not is it created.
 */
export interface PostOnceDeps {
  db: Db;
  bluesky: BlueskyClient;
  /** How long a `pending` row may belong to a run still in flight, in ms. */
  inFlightMs: number;
  clock?: () => number;
}

export interface PostOnceRequest {
  requestId: string;
  appId: string;
  account: SocialAccount;
  text: string;
  call: NetworkCall;
  logger: Logger;
}

export interface PostOnceResult extends PublishedPost {
  /** True when an earlier run of the request had already posted. */
  reused: boolean;
}

/** 4xx answers mean the network refused: nothing was posted. Anything else leaves the outcome unknown. */
const isRefusal = (err: unknown): boolean =>
  err instanceof UpstreamError && err.status !== undefined && err.status >= 400 && err.status < 500 && err.status !== 408;

function inProgress(network: string): UpstreamError {
  return new UpstreamError({
    kind: 'server_error',
    provider: network,
    message: `a post for this request is already being made on ${network}; try again shortly`,
  });
}

export async function postOnce(deps: PostOnceDeps, request: PostOnceRequest): Promise<PostOnceResult> {
  const { db } = deps;
  const { network } = request.account;
  const { fresh, row } = await socialPostStore.claim(db, {
    requestId: request.requestId,
    appId: request.appId,
    network,
    rkey: network === 'bluesky' ? newTid() : null,
  });
  if (!fresh) {
    if (row.status === 'posted' && row.post_id && row.url) {
      request.logger.info({ network: row.network }, 'social-post: this request already posted; returning that post');
      return { id: row.post_id, url: row.url, reused: true };
    }
    if (row.network !== network) {
      // The Space switched networks between two runs of one request: the earlier attempt's outcome stays its own.
      throw new UpstreamError({
        kind: 'bad_request',
        provider: network,
        message: `an earlier attempt of this request posted to ${row.network}; not posting it to ${network} as well`,
      });
    }
    checkResumable(deps, row);
    if (!(await socialPostStore.retake(db, row))) throw inProgress(network);
  }
  try {
    const post = await publish(deps, request, { rkey: row.rkey, settle: !fresh });
    await socialPostStore.markPosted(db, request.requestId, { postId: post.id, url: post.url });
    return { ...post, reused: false };
  } catch (err) {
    if (isRefusal(err)) await socialPostStore.markFailed(db, request.requestId, err instanceof Error ? err.message : String(err));
    throw err;
  }
}

/** Throws unless a previous attempt's row may be taken over now. */
function checkResumable(deps: PostOnceDeps, row: SocialPostRow): void {
  const now = (deps.clock ?? Date.now)();
  if (row.status !== 'pending') return;
  if (now - row.updated_on.getTime() < deps.inFlightMs) throw inProgress(row.network);
  if (row.network === 'mastodon' && now - row.added_on.getTime() >= MASTODON_IDEMPOTENCY_WINDOW_MS) {
    throw new UpstreamError({
      kind: 'bad_request',
      provider: 'mastodon',
      message:
        'an earlier attempt to post for this request ended without an answer more than an hour ago; Mastodon no longer recognises its Idempotency-Key, so it is not posted again',
    });
  }
}

async function publish(deps: PostOnceDeps, request: PostOnceRequest, { rkey, settle }: { rkey: string | null; settle: boolean }): Promise<PublishedPost> {
  const { account, text, call } = request;
  if (account.network === 'mastodon') return postToMastodon(account, { text, idempotencyKey: request.requestId }, call);
  if (!rkey) throw new Error('a Bluesky row always has its record key');
  if (settle) {
    const existing = await deps.bluesky.findPost(account, rkey, call);
    if (existing) {
      request.logger.info({ network: 'bluesky' }, 'social-post: an earlier attempt of this request had posted; returning that post');
      return existing;
    }
  }
  return deps.bluesky.createPost(account, { text, rkey }, call);
}
