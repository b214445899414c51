import type { SocialPost } from '../generated/prisma/client';
import type { Db } from './db';

export type SocialPostRow = SocialPost;

export interface SocialPostClaim {
  requestId: string;
  appId: string;
  network: string;
  /** Bluesky: the record key chosen before the call. */
  rkey: string | null;
}

/**
 * The `social_posts` table: one row per request id, written before the network is called. The
 * primary key makes the first writer win; every later run of the same request reads that row.
 */
export const socialPostStore = {
  /** Inserts a `pending` row unless the request has one; `fresh` says whether this call wrote it. */
  async claim(db: Db, claim: SocialPostClaim): Promise<{ fresh: boolean; row: SocialPostRow }> {
    const inserted = await db.$queryRaw<{ request_id: string }[]>`
      INSERT INTO "social_posts" ("request_id", "app_id", "network", "status", "rkey")
      VALUES (${claim.requestId}, ${claim.appId}::uuid, ${claim.network}, 'pending', ${claim.rkey})
      ON CONFLICT ("request_id") DO NOTHING
      RETURNING "request_id"`;
    const row = await db.socialPost.findUniqueOrThrow({ where: { request_id: claim.requestId } });
    return { fresh: inserted.length > 0, row };
  },

  /**
   * Takes over a row a previous attempt left (`failed`, or `pending` with no answer known), only if
   * nobody else did since it was read: compare-and-set on `attempts`. False when another run won.
   */
  async retake(db: Db, row: Pick<SocialPostRow, 'request_id' | 'status' | 'attempts'>): Promise<boolean> {
    const { count } = await db.socialPost.updateMany({
      where: { request_id: row.request_id, status: row.status, attempts: row.attempts },
      data: { status: 'pending', error: null, attempts: row.attempts + 1 },
    });
    return count === 1;
  },

  async markPosted(db: Db, requestId: string, { postId, url }: { postId: string; url: string }): Promise<void> {
    await db.socialPost.update({ where: { request_id: requestId }, data: { status: 'posted', post_id: postId, url, error: null } });
  },

  /** The network refused the post, so nothing was posted: a later attempt may post. */
  async markFailed(db: Db, requestId: string, error: string): Promise<void> {
    await db.socialPost.update({ where: { request_id: requestId }, data: { status: 'failed', error: error.slice(0, 500) } });
  },
};
