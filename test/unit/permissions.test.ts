import { generateApiKey, hashApiKey, sameHash } from '../../src/auth/api-key';
import { permissionsFor } from '../../src/domain/permissions';

describe('permissionsFor', () => {
  it('grows from viewer to owner', () => {
    const viewer = permissionsFor('viewer', false);
    const member = permissionsFor('member', false);
    const admin = permissionsFor('admin', false);
    const owner = permissionsFor('owner', false);
    expect(viewer.every((p) => member.includes(p))).toBe(true);
    expect(member.every((p) => admin.includes(p))).toBe(true);
    expect(admin.every((p) => owner.includes(p))).toBe(true);
    expect(viewer).not.toContain('prompts:write');
    expect(member).not.toContain('apps:update');
    expect(owner).toContain('keys:manage');
  });

  it('gives review and queue rights only to service owners', () => {
    expect(permissionsFor('owner', false)).not.toContain('prompts:review');
    expect(permissionsFor('viewer', true)).toEqual(expect.arrayContaining(['prompts:review', 'prompts:create_public', 'queues:admin']));
  });
});

describe('API keys', () => {
  it('are random, prefixed, and hashed with SHA-256', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a.secret).not.toBe(b.secret);
    expect(a.secret).toMatch(/^sy-[A-Za-z0-9_-]{43}$/);
    expect(a.hashedKey).toBe(hashApiKey(a.secret));
    expect(a.hashedKey).toMatch(/^[0-9a-f]{64}$/);
    expect(a.keyEnd).toBe(a.secret.slice(-4));
  });

  it('compare hashes in constant time and reject different lengths', () => {
    const { hashedKey } = generateApiKey();
    expect(sameHash(hashedKey, hashedKey)).toBe(true);
    expect(sameHash(hashedKey, hashApiKey('other'))).toBe(false);
    expect(sameHash(hashedKey, 'abcd')).toBe(false);
  });
});
