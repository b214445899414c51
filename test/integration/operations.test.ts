import request from 'supertest';
import { buildApp } from '../../src/app/app';
import { loadConfig } from '../../src/config/load';
import { connectInfrastructure } from '../../src/app/infrastructure';
import { createLogger } from '../../src/logging/logger';
import { buildServices } from '../../src/app/container';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';

let ctx: TestContext;
let member: Tenant;
let serviceOwner: Tenant;

beforeAll(async () => {
  ctx = createTestContext();
  [member, serviceOwner] = await Promise.all([ctx.tenant(), ctx.tenant({ serviceOwner: true })]);
});
afterAll(() => ctx.close());

describe('probes', () => {
  it('GET /healthz answers while the process is up, with no key', async () => {
    const res = await request(ctx.app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /readyz reports PostgreSQL and Redis', async () => {
    const res = await request(ctx.app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ready: true, checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('GET /readyz answers 503 when Redis cannot be reached', async () => {
    const config = { ...loadConfig(), redisUrl: 'redis://127.0.0.1:1' };
    const logger = createLogger('silent');
    const infra = connectInfrastructure(config, logger);
    try {
      const app = buildApp({ config, logger, services: buildServices(infra) });
      const res = await request(app).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body.ready).toBe(false);
      expect(res.body.checks.postgres).toBe('ok');
      expect(res.body.checks.redis).not.toBe('ok');
    } finally {
      await infra.close();
    }
  });
});

describe('queue dashboard', () => {
  it('asks for credentials without a key', async () => {
    const res = await request(ctx.app).get('/admin/queues');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain('Basic');
    expect(res.body.error.code).toBe('missing_api_key');
  });

  it('is closed to keys that are not service owners', async () => {
    const res = await request(ctx.app).get('/admin/queues').set(member.auth);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('permission_denied');
  });

  it('opens to a service-owner key, as bearer or as the Basic password', async () => {
    const bearer = await request(ctx.app).get('/admin/queues').set(serviceOwner.auth);
    expect(bearer.status).toBe(200);
    expect(bearer.headers['content-type']).toContain('text/html');
    const basic = await request(ctx.app).get('/admin/queues').auth('operator', serviceOwner.api_key);
    expect(basic.status).toBe(200);
    const queues = await request(ctx.app).get('/admin/queues/api/queues').set(serviceOwner.auth);
    expect(queues.status).toBe(200);
    const names = (queues.body.queues as { name: string }[]).map((q) => q.name);
    expect(names).toEqual(expect.arrayContaining(['sandbox-sync', 'prompt-review', 'batches', 'batch-lines']));
  });
});
