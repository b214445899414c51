import type { Db } from './db';
import type { Role } from '../domain/permissions';

export interface KeyOwner {
  id: string;
  org_id: string;
  app_id: string | null;
  role: Role;
  hashed_key: string;
  user: { id: string; idp_id: string; is_service_owner: boolean };
}

export interface KeyListing {
  id: string;
  name: string;
  role: Role;
  key_end: string;
  app_id: string | null;
  user_id: string;
  added_on: Date;
  last_used_on: Date | null;
  revoked_on: Date | null;
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
} as const;

export class ApiKeyRepository {
  constructor(private readonly db: Db) {}

  /** The live (not revoked) key with this hash, with its user. */
  findActiveByHash(hashedKey: string): Promise<KeyOwner | null> {
    return this.db.apiKey.findFirst({
      where: { hashed_key: hashedKey, revoked_on: null },
      select: {
        id: true,
        org_id: true,
        app_id: true,
        role: true,
        hashed_key: true,
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

  /** Revokes a key of the organization; false when there is no such live key. */
  async revoke(orgId: string, keyId: string, when: Date): Promise<boolean> {
    const { count } = await this.db.apiKey.updateMany({
      where: { id: keyId, org_id: orgId, revoked_on: null },
      data: { revoked_on: when },
    });
    return count === 1;
  }
}
