import { execFile } from 'node:child_process';
import path from 'node:path';
import request from 'supertest';
import { QUEUE_DASHBOARD_REFUSAL } from '../../src/http/middleware/queue-admin-guard';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';

/**
 * The operator's path to a service owner's key: the queue dashboard's 403 names the command, the command
 * makes the key, the dashboard opens to it; and a key revoked from the CLI is refused at once by a
 * running API process that had it cached.
 */

const ROOT = path.resolve(__dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
jest.setTimeout(180_000);

let ctx: TestContext;
let tenant: Tenant;
/** The API process's Redis prefix: the CLI announces revocations under it. */
let redisPrefix: string;

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(TSX, ['src/cli/main.ts', ...args], { cwd: ROOT, env: { ...process.env, REDIS_PREFIX: redisPrefix }, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  redisPrefix = `${process.env.REDIS_PREFIX ?? 'sytest'}_${uniqueSuffix()}`;
  ctx = createTestContext({ redisPrefix, authCacheTtlMs: 60_000 });
  tenant = await ctx.tenant();
});
afterAll(() => ctx.close());

it("names the command in the dashboard's 403; that command's key opens the dashboard", async () => {
  const refused = await request(ctx.app).get('/admin/queues').set(tenant.auth);
  expect(refused.status).toBe(403);
  expect(refused.body.error.message).toBe(QUEUE_DASHBOARD_REFUSAL);
  expect(QUEUE_DASHBOARD_REFUSAL).toContain('npm run -s cli -- keys create --org-id <organization id> --service-owner');

  const made = await cli(['keys', 'create', '--org-id', tenant.org_id, '--service-owner', '--json']);
  expect(made).toMatchObject({ code: 0, stderr: '' });
  const key = JSON.parse(made.stdout) as { api_key: string; key_id: string; service_owner: boolean; role: string };
  expect(key).toMatchObject({ service_owner: true, role: 'member' });
  expect(
    (
      await request(ctx.app)
        .get('/admin/queues')
        .set({ Authorization: `Bearer ${key.api_key}` })
    ).status,
  ).toBe(200);
  expect((await request(ctx.app).get('/admin/queues').auth('operator', key.api_key)).status).toBe(200);
  // Its user is a service owner of its own: the owner's bootstrap key gains nothing.
  expect((await request(ctx.app).get('/admin/queues').set(tenant.auth)).status).toBe(403);

  const row = await ctx.services.db.apiKey.findUniqueOrThrow({ where: { id: key.key_id }, include: { user: true } });
  expect(row.user).toMatchObject({ idp_id: expect.stringMatching(/^service-owner@/), is_service_owner: true });
  const text = await cli(['keys', 'create', '--org-id', tenant.org_id, '--service-owner']);
  expect(text.stdout).toContain('member, service owner (queues:admin, prompt review)');
});

it('creates a key that expires and keeps to its models', async () => {
  const made = await cli([
    'keys',
    'create',
    '--org-id',
    tenant.org_id,
    '--app-id',
    tenant.app_id,
    '--expires-in',
    '3600',
    '--allowed-models',
    'gpt-4.1-mini,test-echo',
    '--json',
  ]);
  expect(made.code).toBe(0);
  const key = JSON.parse(made.stdout) as { key_id: string; expires_on: string };
  expect(Date.parse(key.expires_on) - Date.now()).toBeGreaterThan(3500_000);
  const row = await ctx.services.db.apiKey.findUniqueOrThrow({ where: { id: key.key_id } });
  expect(row.allowed_models).toEqual(['gpt-4.1-mini', 'test-echo']);
});

it('a key revoked from the CLI is refused at once by an API process that has it cached', async () => {
  const made = await cli(['keys', 'create', '--org-id', tenant.org_id, '--json']);
  const key = JSON.parse(made.stdout) as { api_key: string; key_id: string };
  const auth = { Authorization: `Bearer ${key.api_key}` };
  expect((await request(ctx.app).get('/v1/apps').set(auth)).status).toBe(200);
  const revoked = await cli(['keys', 'revoke', '--org-id', tenant.org_id, '--key-id', key.key_id]);
  expect(revoked.code).toBe(0);
  // The announcement travels through Redis: give it a moment, far below the 60 s the cache would keep the key.
  const start = Date.now();
  let status = 200;
  while (status !== 401 && Date.now() - start < 2000) {
    status = (await request(ctx.app).get('/v1/apps').set(auth)).status;
    if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(status).toBe(401);
});
