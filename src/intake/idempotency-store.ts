import { createHash } from 'node:crypto';
import type { KeySpace } from '../queue/key-space';
import type { RedisClient as Redis } from '../queue/redis';
import { SerialisedBody } from '../formats/wire-sink';

/** How long a finished request's record (and its answer) is kept, in ms: the 24 h of the contract. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;

/** What a repeat replays: a successful answer (its body may come serialised already: SerialisedBody). */
export type StoredAnswer =
  | { kind: 'json'; response: unknown }
  /** The SSE `data:` payloads in order; `[DONE]` follows them. */
  | { kind: 'stream'; frames: string[] };

/** Why a finished request's answer was not kept: its privacy level, or its size. */
export type Withheld = 'privacy' | 'size';

export type IdempotencyRecord =
  | { state: 'running'; fingerprint: string }
  | { state: 'done'; fingerprint: string; logId: string | null; answer: StoredAnswer }
  | { state: 'done'; fingerprint: string; logId: string | null; withheld: Withheld };

export type FinishedRecord = Extract<IdempotencyRecord, { state: 'done' }>;

/** Whose key it is: keys are scoped to one organization and one Space. */
export interface IdempotencyScope {
  orgId: string;
  appId: string;
  key: string;
}

/** Claims the key when free (returns nothing), else returns the record that holds it. One round trip. */
const CLAIM = `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('HGETALL', KEYS[1]) end
redis.call('HSET', KEYS[1], 'state', 'running', 'fingerprint', ARGV[1], 'token', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {}
`;

/**
 * Replaces the running record with the finished one, if this request still holds the claim; a record
 * that keeps an answer is also listed in its Space's set (KEYS[2]), so a rise of privacy can find it.
 */
const FINISH = `
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if redis.call('HEXISTS', KEYS[1], 'answer') == 1 then
  redis.call('SADD', KEYS[2], KEYS[1])
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
return 1
`;

/** Frees the key, if this request still holds the claim. */
const RELEASE = `
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
`;

/** Drops a finished record's answer (the record itself, and its expiry, stay). */
const WITHHOLD = `
if redis.call('HEXISTS', KEYS[1], 'answer') == 0 then return 0 end
redis.call('HDEL', KEYS[1], 'answer')
redis.call('HSET', KEYS[1], 'withheld', 'privacy')
return 1
`;

/** Withholds the answer of every record passed (KEYS[2..]) and takes them off the Space's set (KEYS[1]). */
const WITHHOLD_ALL = `
for i = 2, #KEYS do
  if redis.call('HEXISTS', KEYS[i], 'answer') == 1 then
    redis.call('HDEL', KEYS[i], 'answer')
    redis.call('HSET', KEYS[i], 'withheld', 'privacy')
  end
  redis.call('SREM', KEYS[1], KEYS[i])
end
return #KEYS - 1
`;

type RedisWithIdempotency = Redis & {
  switchyardIdempotencyClaim(key: string, fingerprint: string, token: string, ttlMs: number): Promise<string[]>;
  switchyardIdempotencyFinish(key: string, index: string, token: string, ttlMs: number, ...fields: string[]): Promise<number>;
  switchyardIdempotencyRelease(key: string, token: string): Promise<number>;
  switchyardIdempotencyWithhold(key: string): Promise<number>;
  switchyardIdempotencyWithholdAll(numberOfKeys: number, ...keys: string[]): Promise<number>;
};

/** An answer as Redis keeps it: JSON, the body's own text reused when it was serialised already. */
function answerJson(answer: StoredAnswer): string {
  if (answer.kind === 'json' && answer.response instanceof SerialisedBody) return `{"kind":"json","response":${answer.response.text}}`;
  return JSON.stringify(answer);
}

function parseRecord(fields: string[]): IdempotencyRecord {
  const hash = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) hash.set(fields[i] as string, fields[i + 1] as string);
  const fingerprint = hash.get('fingerprint') ?? '';
  if (hash.get('state') !== 'done') return { state: 'running', fingerprint };
  const common = { state: 'done' as const, fingerprint, logId: hash.get('log_id') || null };
  const answer = hash.get('answer');
  if (answer !== undefined) return { ...common, answer: JSON.parse(answer) as StoredAnswer };
  return { ...common, withheld: hash.get('withheld') === 'size' ? 'size' : 'privacy' };
}

/**
 * Idempotency records in Redis, one hash per key under its Space's prefix (KeySpace.space: the Space is
 * the hash tag, so a Space's records and its set of kept ones share a slot for the scripts): `running` while the first request
 * runs (with the claim's token, so only that request finishes or frees it), then `done` for 24 h with
 * the answer, or only its log id and why the answer was not kept. The client's key is stored hashed.
 * A set per Space lists the records that keep an answer, so raising its privacy drops them at once.
 */
export class IdempotencyStore {
  private readonly redis: RedisWithIdempotency;

  constructor(
    redis: Redis,
    private readonly keys: KeySpace,
  ) {
    redis.defineCommand('switchyardIdempotencyClaim', { numberOfKeys: 1, lua: CLAIM });
    redis.defineCommand('switchyardIdempotencyFinish', { numberOfKeys: 2, lua: FINISH });
    redis.defineCommand('switchyardIdempotencyRelease', { numberOfKeys: 1, lua: RELEASE });
    redis.defineCommand('switchyardIdempotencyWithhold', { numberOfKeys: 1, lua: WITHHOLD });
    redis.defineCommand('switchyardIdempotencyWithholdAll', { lua: WITHHOLD_ALL });
    this.redis = redis as RedisWithIdempotency;
  }

  /** Takes the key for a new run (null), or returns the record of the request that already has it. */
  async claim(
    scope: IdempotencyScope,
    { fingerprint, token, ttlMs }: { fingerprint: string; token: string; ttlMs: number },
  ): Promise<IdempotencyRecord | null> {
    const fields = await this.redis.switchyardIdempotencyClaim(this.keyOf(scope), fingerprint, token, ttlMs);
    return fields.length === 0 ? null : parseRecord(fields);
  }

  async finish(scope: IdempotencyScope, token: string, record: FinishedRecord): Promise<void> {
    const fields = ['state', 'done', 'fingerprint', record.fingerprint, 'log_id', record.logId ?? ''];
    if ('answer' in record) fields.push('answer', answerJson(record.answer));
    else fields.push('withheld', record.withheld);
    await this.redis.switchyardIdempotencyFinish(this.keyOf(scope), this.keptKeyOf(scope), token, IDEMPOTENCY_RETENTION_MS, ...fields);
  }

  async release(scope: IdempotencyScope, token: string): Promise<void> {
    await this.redis.switchyardIdempotencyRelease(this.keyOf(scope), token);
  }

  /** Drops a kept answer whose Space now runs at privacy level 2 or 3, keeping the rest of the record. */
  async withhold(scope: IdempotencyScope): Promise<void> {
    await this.redis.switchyardIdempotencyWithhold(this.keyOf(scope));
  }

  /**
   * Drops every answer kept for the Space (each record stays, as withheld for privacy): called once a
   * rise of its privacy level is committed. An answer kept after this call is caught by the check its
   * request makes after keeping it (see IdempotentCompletions).
   */
  async withholdSpace(space: Omit<IdempotencyScope, 'key'>): Promise<void> {
    const index = this.keptKeyOf(space);
    const records = await this.redis.smembers(index);
    if (records.length > 0) await this.redis.switchyardIdempotencyWithholdAll(records.length + 1, index, ...records);
  }

  keyOf({ orgId, appId, key }: IdempotencyScope): string {
    const digest = createHash('sha256').update(key, 'utf8').digest('hex');
    return `${this.keys.space(appId)}:idempotency:${orgId}:${digest}`;
  }

  /** The set of the Space's records that keep an answer. */
  private keptKeyOf({ orgId, appId }: Omit<IdempotencyScope, 'key'>): string {
    return `${this.keys.space(appId)}:idempotency-kept:${orgId}`;
  }
}
