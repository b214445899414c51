import type { Prisma } from '../generated/prisma/client';
import type { Db, Tx } from './db';
import type { KeyRole } from '../domain/permissions';
import type { PageQuery } from '../schemas/common';
import { afterCursor, NEWEST_FIRST, unknownCursor } from './pagination';

export interface KeyOwner {
  id: string;
  org_id: string;
  app_id: string | null;
  role: KeyRole;
  hashed_key: string;
  permissions: string[];
  expires_on: Date | null;
  allowed_models: string[];
  user: { id: string; idp_id: string; is_service_owner: boolean };
}

export interface KeyListing {
  id: string;
  name: string;
  role: KeyRole;
  key_end: string;
  app_id: string | null;
  user_id: string;
  added_on: Date;
  last_used_on: Date | null;
  revoked_on: Date | null;
  permissions: string[];
  expires_on: Date | null;
  allowed_models: string[];
  user: { idp_id: string; is_service_owner: boolean };
}

const LISTING_FIELDS = {
  id: true,
  name: true,
  role: true,
  key_end: true,
  app_id: true,
  user_id: true,
  added_on: true,
  last_used_on: true,
  revoked_on: true,
  permissions: true,
  expires_on: true,
  allowed_models: true,
  user: { select: { idp_id: true, is_service_owner: true } },
} as const satisfies Prisma.ApiKeySelect;

/** Which keys a listing covers: one organization, optionally one Space's keys, optionally revoked ones too. */
export interface KeyScope {
  orgId: string;
  /** Only the keys acting on this Space. */
  appId?: string;
  includeRevoked: boolean;
}

export class ApiKeyRepository {
  constructor(private readonly db: Db) {}

  /** The live key with this hash (not revoked, not expired at `now`), with its user. */
  findActiveByHash(hashedKey: string, now = new Date()): Promise<KeyOwner | null> {
    return this.db.apiKey.findFirst({
      where: { hashed_key: hashedKey, revoked_on: null, OR: [{ expires_on: null }, { expires_on: { gt: now } }] },
      select: {
        id: true,
        org_id: true,
        app_id: true,
        role: true,
        hashed_key: true,
        permissions: true,
        expires_on: true,
        allowed_models: true,
        user: { select: { id: true, idp_id: true, is_service_owner: true } },
      },
    });
  }

  async touch(keyId: string, when: Date): Promise<void> {
    await this.db.apiKey.update({ where: { id: keyId }, data: { last_used_on: when } });
  }

  listForOrg(orgId: string): Promise<KeyListing[]> {
    return this.db.apiKey.findMany({ where: { org_id: orgId }, orderBy: { added_on: 'asc' }, select: LISTING_FIELDS });
  }

  /** One page of keys, newest first (`limit + 1` rows: the extra one tells whether there is more). */
  async page(scope: KeyScope, query: PageQuery): Promise<KeyListing[]> {
    const where: Prisma.ApiKeyWhereInput = {
      org_id: scope.orgId,
      ...(scope.appId ? { app_id: scope.appId } : {}),
      ...(scope.includeRevoked ? {} : { revoked_on: null }),
    };
    const conditions: Prisma.ApiKeyWhereInput[] = [where];
    if (query.after) {
      const cursor = await this.db.apiKey.findFirst({ where: { ...where, id: query.after }, select: { id: true, added_on: true } });
      if (!cursor) throw unknownCursor();
      conditions.push(afterCursor(cursor));
    }
    return this.db.apiKey.findMany({ where: { AND: conditions }, orderBy: NEWEST_FIRST, take: query.limit + 1, select: LISTING_FIELDS });
  }

  /** A key of the organization, revoked or not; null for another organization's. */
  find(orgId: string, keyId: string, tx: Db | Tx = this.db): Promise<KeyListing | null> {
    return tx.apiKey.findFirst({ where: { id: keyId, org_id: orgId }, select: LISTING_FIELDS });
  }

  /** The key's current hash (to forget it in the authentication caches once it changes). */
  async hashOf(keyId: string, tx: Db | Tx = this.db): Promise<string | null> {
    return (await tx.apiKey.findUnique({ where: { id: keyId }, select: { hashed_key: true } }))?.hashed_key ?? null;
  }

  /** Revokes a key of the organization; false when there is no such live key. */
  async revoke(orgId: string, keyId: string, when: Date): Promise<boolean> {
    const { count } = await this.db.apiKey.updateMany({
      where: { id: keyId, org_id: orgId, revoked_on: null },
      data: { revoked_on: when },
    });
    return count === 1;
  }

  /**
   * Gives a live key of the organization a new secret (its hash and last characters) in place of the one
   * whose hash is `from`; false when there is no such key, or its secret changed meanwhile.
   */
  async replaceSecret(key: { orgId: string; keyId: string; from: string }, secret: { hashedKey: string; keyEnd: string }): Promise<boolean> {
    const { count } = await this.db.apiKey.updateMany({
      where: { id: key.keyId, org_id: key.orgId, hashed_key: key.from, revoked_on: null },
      data: { hashed_key: secret.hashedKey, key_end: secret.keyEnd },
    });
    return count === 1;
  }
}
