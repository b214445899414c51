import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Seals short secrets (access tokens, app passwords) with AES-256-GCM from node:crypto: no library
 * needed for one authenticated cipher. The sealed text is
 *
 *   v1.<key id>.<iv>.<tag>.<ciphertext>        (base64url parts)
 *
 * The key id (a hash of the key, never the key) says which key sealed it, so after a rotation the
 * old key, kept in `previous`, still opens old secrets while new ones use `current`. The caller's
 * `context` (Space id and secret name) is authenticated data: a sealed value copied to another Space
 * or another field does not open.
 */
const VERSION = 'v1';
/** GCM's recommended nonce length, in bytes. */
const IV_BYTES = 12;

export interface SecretKeys {
  current: Buffer;
  previous: Buffer[];
}

/** A secret that cannot be opened: sealed with a key this service no longer has, altered, or not ours. */
export class SecretOpenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretOpenError';
  }
}

/** Names a key without revealing it: the first 8 bytes of a domain-separated SHA-256. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update('switchyard secret key id\0').update(key).digest('hex').slice(0, 16);
}

export class SecretBox {
  private readonly keys: Map<string, Buffer>;
  private readonly currentId: string;

  constructor(keys: SecretKeys) {
    this.currentId = keyId(keys.current);
    this.keys = new Map([keys.current, ...keys.previous].map((key) => [keyId(key), key]));
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key(this.currentId), iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, this.currentId, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
  }

  open(sealed: string, context: string): string {
    const [version, id, iv, tag, ciphertext, ...rest] = sealed.split('.');
    if (version !== VERSION || !id || !iv || !tag || ciphertext === undefined || rest.length > 0)
      throw new SecretOpenError('not a sealed secret of a known format');
    const key = this.keys.get(id);
    if (!key) throw new SecretOpenError(`sealed with key ${id}, which this service does not have (PLUGIN_SECRETS_KEY / PLUGIN_SECRETS_PREVIOUS_KEYS)`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretOpenError('the sealed secret does not authenticate (altered, or sealed for another Space or field)');
    }
  }

  /** Whether `sealed` was sealed with an older key and should be sealed again with the current one. */
  isStale(sealed: string): boolean {
    return sealed.split('.')[1] !== this.currentId;
  }

  private key(id: string): Buffer {
    const key = this.keys.get(id);
    if (!key) throw new SecretOpenError(`no key ${id}`);
    return key;
  }
}

/** The box for a configuration's keys, or null when the service has none (credentials cannot be stored). */
export function secretBoxFor(keys: SecretKeys | null): SecretBox | null {
  return keys ? new SecretBox(keys) : null;
}
