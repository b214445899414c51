import { LRUCache } from 'lru-cache';
import { ApiError } from '../errors/api-error';
import type { ApiKeyRepository, KeyOwner } from '../store/api-keys';
import { hashApiKey, sameHash, throttlePrefixOf } from './api-key';
import type { AuthContext } from './auth-context';
import type { AttemptOrigin, AuthThrottle } from './auth-throttle';
import { keyPermissions } from '../domain/permissions';

export interface AuthenticatorOptions {
  /** How long a resolved key is reused in this process, in ms; 0 asks the database every time. */
  cacheTtlMs: number;
  /** How often `last_used_on` is written for one key, at most, in ms. */
  touchIntervalMs?: number;
  /** Counts failed attempts and refuses origins past their limit; without it nothing is throttled. */
  throttle?: AuthThrottle;
  /**
   * Subscribes to the deployment's announcements of revoked and rotated keys (KeyRevocations), whose
   * hashes are then dropped from the cache. Started with the first key that authenticates.
   */
  listenForRevocations?: (forget: (hashedKey: string) => void) => Promise<void>;
}

/** What a request presents: its Authorization header, and the client address it came from. */
export interface Credentials {
  authorization: string | undefined;
  clientAddress: string | undefined;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const WHITESPACE = /\s/;

/**
 * The key of an Authorization header, as BEARER reads it. The usual form, `Bearer <key>` with nothing
 * else, is read without the regex's match array.
 */
function bearerSecret(authorization: string): string | undefined {
  if (authorization.startsWith('Bearer ')) {
    const rest = authorization.slice(7);
    if (rest !== '' && !WHITESPACE.test(rest)) return rest;
  }
  return BEARER.exec(authorization)?.[1];
}
const MAX_CACHE_ENTRIES = 10_000;
/**
 * How long a key that authenticated in this process may still be checked from a throttled origin, in
 * ms. Only a caller holding a real key can tell this apart from a throttled refusal.
 */
const PROVEN_KEY_MS = 24 * 3600 * 1000;

function toContext(key: KeyOwner): AuthContext {
  return {
    keyId: key.id,
    orgId: key.org_id,
    userId: key.user.id,
    idpId: key.user.idp_id,
    role: key.role,
    isServiceOwner: key.user.is_service_owner,
    appId: key.app_id,
    permissions: keyPermissions(key, key.user.is_service_owner),
    expiresAt: key.expires_on ? key.expires_on.getTime() : null,
    allowedModels: key.allowed_models.length > 0 ? key.allowed_models : null,
  };
}

function throttled(waitMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new ApiError('too_many_failed_authentications', `Too many failed authentication attempts; try again in ${seconds} s.`, 'Authorization').withHeaders({
    'retry-after': String(seconds),
  });
}

/** Resolves `Authorization: Bearer <key>` to an AuthContext, or throws a 401. */
export class Authenticator {
  /**
   * Resolved keys by hash, for `cacheTtlMs`; the least recently used go first past MAX_CACHE_ENTRIES.
   * Requests that miss together share one lookup (`fetch`): when a busy key's entry expires, its
   * concurrent requests would otherwise each query the database (64 clients sent about 130 queries a
   * burst, every `cacheTtlMs`).
   */
  private readonly cache: LRUCache<string, AuthContext> | null;
  /** When each key's `last_used_on` was last written, by key id. */
  private readonly lastTouched = new LRUCache<string, number>({ max: MAX_CACHE_ENTRIES });
  /** Hashes of keys that passed the database check, and when they last did (see PROVEN_KEY_MS). */
  private readonly proven = new LRUCache<string, number>({ max: MAX_CACHE_ENTRIES });
  private listening: Promise<void> | null = null;

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly options: AuthenticatorOptions,
  ) {
    this.cache =
      options.cacheTtlMs > 0
        ? new LRUCache<string, AuthContext>({
            max: MAX_CACHE_ENTRIES,
            ttl: options.cacheTtlMs,
            fetchMethod: async (hashed, _stale, { options: entry }) => {
              const context = await this.lookUp(hashed);
              // A key that expires sooner than the cache entry would end is kept only until it expires.
              if (context?.expiresAt != null) entry.ttl = Math.max(1, Math.min(options.cacheTtlMs, context.expiresAt - Date.now()));
              return context;
            },
          })
        : null;
  }

  /**
   * Drops a key from this process's cache at once (it was revoked, or rotated to a new secret). Other
   * processes are told through KeyRevocations.
   */
  forget(hashedKey: string): void {
    this.cache?.delete(hashedKey);
    this.proven.delete(hashedKey);
  }

  /**
   * The key's context when the cache holds it, at once; undefined otherwise (then `authenticate`). Most
   * requests come with a key used a moment ago: they need no promise to be let in.
   */
  cached(authorization: string | undefined): AuthContext | undefined {
    const secret = authorization === undefined || !this.cache ? undefined : bearerSecret(authorization);
    return secret ? this.cache?.get(hashApiKey(secret)) : undefined;
  }

  async authenticate({ authorization, clientAddress }: Credentials, now = Date.now()): Promise<AuthContext> {
    if (!authorization) throw new ApiError('missing_api_key', 'Missing Authorization header: send "Authorization: Bearer <key>".', 'Authorization');
    const secret = bearerSecret(authorization);
    if (!secret) {
      const malformed = new ApiError('invalid_api_key', 'The Authorization header must be "Bearer <key>".', 'Authorization');
      throw await this.refusal({ address: clientAddress, keyPrefix: undefined }, malformed, now);
    }
    const hashed = hashApiKey(secret);
    const cached = this.cache?.get(hashed);
    if (cached) return cached;
    const origin: AttemptOrigin = { address: clientAddress, keyPrefix: throttlePrefixOf(secret) };
    // A throttled origin gets 429 without its key being looked up, unless that key proved valid here lately.
    const waitMs = this.options.throttle?.blockedFor(origin, now) ?? 0;
    if (waitMs > 0 && !this.provenRecently(hashed, now)) throw throttled(waitMs);
    // A key the lookup does not find is not cached (`fetch` stores nothing for undefined).
    const context = this.cache ? await this.cache.fetch(hashed) : await this.lookUp(hashed);
    if (!context) {
      this.proven.delete(hashed);
      throw await this.refusal(origin, new ApiError('invalid_api_key', 'Invalid API key.', 'Authorization'), now);
    }
    this.proven.set(hashed, now);
    this.touch(context.keyId, now);
    if (this.cache && !this.listening) this.listen();
    return context;
  }

  /** The live key with this hash, from the database. */
  private async lookUp(hashed: string): Promise<AuthContext | undefined> {
    const key = await this.keys.findActiveByHash(hashed);
    return key && sameHash(key.hashed_key, hashed) ? toContext(key) : undefined;
  }

  /** Counts the failure; past a limit the answer is 429 instead of `error`. */
  private async refusal(origin: AttemptOrigin, error: ApiError, now: number): Promise<ApiError> {
    const waitMs = (await this.options.throttle?.recordFailure(origin, now)) ?? 0;
    return waitMs > 0 ? throttled(waitMs) : error;
  }

  private provenRecently(hashed: string, now: number): boolean {
    return (this.proven.get(hashed) ?? 0) + PROVEN_KEY_MS > now;
  }

  /** Once a key is cached, revocations announced by any process are listened to (a failure leaves AUTH_CACHE_TTL_MS as the bound). */
  private listen(): void {
    const listen = this.options.listenForRevocations;
    if (!listen) return;
    // Tried once per process: a failure is logged by the listener, and the cache's TTL stays the bound.
    this.listening = listen((hashed) => this.forget(hashed)).catch(() => undefined);
  }

  /** Records use without holding up the request; a failed write only loses a timestamp. */
  private touch(keyId: string, now: number): void {
    const interval = this.options.touchIntervalMs ?? 60_000;
    if ((this.lastTouched.get(keyId) ?? 0) + interval > now) return;
    this.lastTouched.set(keyId, now);
    this.keys.touch(keyId, new Date(now)).catch(() => undefined);
  }
}
