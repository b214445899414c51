import { ApiError } from '../errors/api-error';
import type { ApiKeyRepository, KeyOwner } from '../store/api-keys';
import { hashApiKey, sameHash } from './api-key';
import type { AuthContext } from './auth-context';
import { permissionsFor } from './permissions';

export interface AuthenticatorOptions {
  /** How long a resolved key is reused in this process, in ms; 0 asks the database every time. */
  cacheTtlMs: number;
  /** How often `last_used_on` is written for one key, at most, in ms. */
  touchIntervalMs?: number;
}

interface CacheEntry {
  context: AuthContext;
  expiresAt: number;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const MAX_CACHE_ENTRIES = 10_000;

function toContext(key: KeyOwner): AuthContext {
  return {
    keyId: key.id,
    orgId: key.org_id,
    userId: key.user.id,
    idpId: key.user.idp_id,
    role: key.role,
    isServiceOwner: key.user.is_service_owner,
    appId: key.app_id,
    permissions: permissionsFor(key.role, key.user.is_service_owner),
  };
}

/** Resolves `Authorization: Bearer <key>` to an AuthContext, or throws a 401. */
export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly options: AuthenticatorOptions,
  ) {}

  async authenticate(header: string | undefined, now = Date.now()): Promise<AuthContext> {
    if (!header) throw new ApiError('missing_api_key', 'Missing Authorization header: send "Authorization: Bearer <key>".', 'Authorization');
    const match = BEARER.exec(header);
    if (!match?.[1]) throw new ApiError('invalid_api_key', 'The Authorization header must be "Bearer <key>".', 'Authorization');
    const hashed = hashApiKey(match[1]);
    const cached = this.cache.get(hashed);
    if (cached && cached.expiresAt > now) return cached.context;
    const key = await this.keys.findActiveByHash(hashed);
    if (!key || !sameHash(key.hashed_key, hashed)) {
      this.cache.delete(hashed);
      throw new ApiError('invalid_api_key', 'Invalid API key.', 'Authorization');
    }
    const context = toContext(key);
    this.remember(hashed, context, now);
    this.touch(key.id, now);
    return context;
  }

  private remember(hashed: string, context: AuthContext, now: number): void {
    if (this.options.cacheTtlMs <= 0) return;
    if (this.cache.size >= MAX_CACHE_ENTRIES) this.cache.clear();
    this.cache.set(hashed, { context, expiresAt: now + this.options.cacheTtlMs });
  }

  /** Records use without holding up the request; a failed write only loses a timestamp. */
  private touch(keyId: string, now: number): void {
    const interval = this.options.touchIntervalMs ?? 60_000;
    if ((this.lastTouched.get(keyId) ?? 0) + interval > now) return;
    if (this.lastTouched.size >= MAX_CACHE_ENTRIES) this.lastTouched.clear();
    this.lastTouched.set(keyId, now);
    this.keys.touch(keyId, new Date(now)).catch(() => undefined);
  }
}
