import { execFile } from 'node:child_process';
import path from 'node:path';
import request from 'supertest';
import { hashApiKey } from '../../src/auth/api-key';
import { loadConfig } from '../../src/config/load';
import { bootstrapTenant } from '../../src/services/tenancy/bootstrap';
import { catalogModelIds } from '../../src/services/tenancy/space-setup';
import { startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import type { Tenant } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';

const ROOT = path.resolve(__dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const API_KEY = /^sy-[A-Za-z0-9_-]{43}$/;

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A CLI process compiles its sources with tsx as it starts: about a second alone, but far longer while the
 * whole suite runs on a small machine, so a process is given a minute and a test (several processes) three.
 */
const CLI_TIMEOUT_MS = 60_000;
jest.setTimeout(180_000);

/** The real CLI as an operator runs it, against this test run's database (DATABASE_URL from global-setup). */
function cli(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    execFile(TSX, ['src/cli/main.ts', ...args], { cwd: ROOT, env, timeout: CLI_TIMEOUT_MS }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

/** Exactly one JSON object on one line and nothing else. */
function parseJsonLine(stdout: string): Record<string, unknown> {
  expect(stdout.endsWith('\n')).toBe(true);
  expect(stdout.trimEnd().split('\n')).toHaveLength(1);
  return JSON.parse(stdout) as Record<string, unknown>;
}

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const publicPrompt = { prompt: 'You answer tersely.', title: 'Terse', description: 'Short answers.' };

let ctx: CompletionsHarness;
let other: Tenant;

beforeAll(async () => {
  // No provider has a key, as on a newcomer's machine: only the built-in test models can answer.
  const withoutProviderKeys = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.endsWith('_API_KEY')));
  ctx = startCompletionsHarness({ providers: loadConfig(withoutProviderKeys).providers });
  other = await ctx.tenant();
});
afterAll(() => ctx.close());

describe('cli bootstrap', () => {
  const orgName = `cli-org-${uniqueSuffix()}`;
  let first: { org_id: string; app_id: string; api_key: string };

  it('--json prints exactly {org_id, app_id, api_key, reused}; the key works and only its hash is stored', async () => {
    const run = await cli(['bootstrap', '--org', orgName, '--space', 'main', '--service-owner', '--rate-limit', '30', '--json']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const body = parseJsonLine(run.stdout);
    expect(Object.keys(body).sort()).toEqual(['api_key', 'app_id', 'org_id', 'reused']);
    expect(body.reused).toBe(false);
    first = body as typeof first;
    expect(first.org_id).toMatch(UUID);
    expect(first.app_id).toMatch(UUID);
    expect(first.api_key).toMatch(API_KEY);

    const db = ctx.services.db;
    const keys = await db.apiKey.findMany({ where: { org_id: first.org_id } });
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({
      hashed_key: hashApiKey(first.api_key),
      key_end: first.api_key.slice(-4),
      role: 'owner',
      app_id: first.app_id,
    });
    expect(JSON.stringify(keys)).not.toContain(first.api_key);
    const app = await db.app.findUniqueOrThrow({ where: { id: first.app_id } });
    expect(app).toMatchObject({ rate_limit: 30, hashed_key: hashApiKey(first.api_key), key_end: first.api_key.slice(-4) });
    expect(JSON.stringify(app)).not.toContain(first.api_key);

    expect((await request(ctx.app).get('/v1/prompts').set(bearer(first.api_key))).status).toBe(200);
    const created = await request(ctx.app).post('/v1/internal/prompts').set(bearer(first.api_key)).send(publicPrompt);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ is_public: true, status: 'approved' });
  });

  it('reuses an organization by name and, without --json, prints a summary that warns the key is shown once', async () => {
    const run = await cli(['bootstrap', '--org', orgName, '--space', 'second', '--idp-id', 'ops@example.com', '--role', 'viewer']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(`Organization  ${first.org_id} (${orgName})`);
    expect(run.stdout).toContain('(viewer)');
    expect(run.stdout).toContain('Warning: this key is shown only once.');
    const apiKey = /API key\s+(\S+)/.exec(run.stdout)?.[1] ?? '';
    expect(apiKey).toMatch(API_KEY);

    expect((await request(ctx.app).get('/v1/prompts').set(bearer(apiKey))).status).toBe(200);
    // A user that is not a service owner gets no internal endpoints, even in a service owner's organization.
    expect((await request(ctx.app).post('/v1/internal/prompts').set(bearer(apiKey)).send(publicPrompt)).status).toBe(403);
    expect(await ctx.services.db.organization.count({ where: { name: orgName } })).toBe(1);
  });
});

describe('cli bootstrap run again', () => {
  const db = () => ctx.services.db;
  const spacesNamed = (orgId: string, name: string) => db().app.count({ where: { org_id: orgId, name } });
  const activeTestModels = async (appId: string) =>
    (await db().appModel.findMany({ where: { app_id: appId, active: true, model: { provider: 'test' } }, include: { model: true } }))
      .map((row) => row.model.model)
      .sort();
  const complete = (key: string, body: Record<string, unknown>) =>
    request(ctx.app)
      .post('/v1/chat/completions')
      .set(bearer(key))
      .send({ messages: [{ role: 'user', content: 'Say hi' }], ...body });

  it('--activate test-echo lets a new Space answer the quick start requests with no provider key', async () => {
    const orgName = `cli-quickstart-${uniqueSuffix()}`;
    const plain = await ctx.tenant({ org: orgName, space: 'plain' });
    const withEcho = parseJsonLine((await cli(['bootstrap', '--org', orgName, '--space', 'main', '--activate', 'test-echo', '--json'])).stdout);
    expect(await activeTestModels(plain.app_id)).toEqual([]);
    expect(await activeTestModels(String(withEcho.app_id))).toEqual(['test-echo']);

    // Without --activate, nothing in a new Space can answer without a provider key.
    const refused = await complete(plain.api_key, {});
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('model_not_available');

    const key = String(withEcho.api_key);
    const automatic = await complete(key, {});
    expect(automatic.status).toBe(200);
    expect(automatic.body).toMatchObject({ model: 'test-echo', choices: [{ message: { content: 'Say hi' } }] });
    const named = await complete(key, { model: 'test-echo', custom_headers: { labels: { team: 'support' } } });
    expect(named.status).toBe(200);
    const streamed = await complete(key, { model: 'test-echo', stream: true }).set('Service-Feature-Flags', '{"smart_learn": "true"}');
    expect(streamed.status).toBe(200);
    expect(streamed.text).toContain('data: [DONE]');
    // `metadata.error` is an empty string; an error would be an object, as in the last event of a failed stream.
    expect(streamed.text).not.toMatch(/"error":\{/);
  });

  it('reuses the organization and the Space, applies the options, prints a new working key and says so', async () => {
    const orgName = `cli-again-${uniqueSuffix()}`;
    const first = await ctx.tenant({ org: orgName, space: 'main' });
    expect(first.reused).toBe(false);

    const again = await cli(['bootstrap', '--org', orgName, '--space', 'main', '--activate', 'test-echo,test-fixed', '--rate-limit', '7', '--json']);
    expect(again.code).toBe(0);
    const second = parseJsonLine(again.stdout);
    expect(second).toEqual({ org_id: first.org_id, app_id: first.app_id, api_key: expect.stringMatching(API_KEY), reused: true });
    expect(second.api_key).not.toBe(first.api_key);
    expect(again.stderr).toBe(
      `Reused the existing Space ${first.app_id} (main) of organization ${first.org_id} (${orgName}): no second Space was created. ` +
        'The key printed is a new one; earlier keys still work (see `keys list` and `keys revoke`).\n',
    );
    expect(await spacesNamed(first.org_id, 'main')).toBe(1);
    expect(await db().organization.count({ where: { name: orgName } })).toBe(1);
    expect(await activeTestModels(first.app_id)).toEqual(['test-echo', 'test-fixed']);
    expect(await db().app.findUniqueOrThrow({ where: { id: first.app_id } })).toMatchObject({ rate_limit: 7 });
    for (const key of [first.api_key, String(second.api_key)]) {
      expect((await request(ctx.app).get(`/v1/apps/${first.app_id}`).set(bearer(key))).status).toBe(200);
    }

    // In text mode the summary goes to stdout and the same sentence to stderr; a run without options changes nothing.
    const text = await cli(['bootstrap', '--org', orgName, '--space', 'main']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`Space         ${first.app_id} (main)`);
    expect(text.stderr).toMatch(/^Reused the existing Space \S+ \(main\) of organization /);
    expect(await activeTestModels(first.app_id)).toEqual(['test-echo', 'test-fixed']);
    expect(await db().app.findUniqueOrThrow({ where: { id: first.app_id } })).toMatchObject({ rate_limit: 7 });
    expect(await db().apiKey.count({ where: { app_id: first.app_id, revoked_on: null } })).toBe(3);
  });

  it("a re-run's new models and rate limit reach a running service on its next request (the Space's version stamp is bumped)", async () => {
    const orgName = `cli-stamp-${uniqueSuffix()}`;
    const first = await ctx.tenant({ org: orgName, space: 'main' });
    // The service loads the Space (no test model on yet) into its cache.
    const before = await complete(first.api_key, { model: 'test-echo' });
    expect(before.status).toBe(400);
    expect(before.body.error.code).toBe('model_not_available');
    const stamp = await ctx.services.spaceVersions.read(first.app_id);

    // The CLI as an operator runs it, against the same Redis prefix as the running service.
    const env = { ...process.env, REDIS_PREFIX: ctx.services.config.redisPrefix };
    const again = await cli(['bootstrap', '--org', orgName, '--space', 'main', '--activate', 'test-echo', '--rate-limit', '1', '--json'], env);
    expect(again.code).toBe(0);
    // The stamp is checked itself too: the cache also expires after a couple of seconds, which a slow CLI start can exceed.
    expect(await ctx.services.spaceVersions.read(first.app_id)).not.toBe(stamp);

    const after = await complete(first.api_key, { model: 'test-echo' });
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ model: 'test-echo' });
    const limited = await complete(first.api_key, { model: 'test-echo' });
    expect(limited.status).toBe(429);
  });

  it('two runs at once make one organization and one Space, and exactly one of them says it reused it', async () => {
    const orgName = `cli-race-${uniqueSuffix()}`;
    const bodies = await Promise.all([1, 2].map(() => bootstrapTenant(db(), { org: orgName, space: 'main' })));
    expect(bodies.map((body) => body.reused).sort()).toEqual([false, true]);
    expect(new Set(bodies.map((body) => body.app_id)).size).toBe(1);
    const org = await db().organization.findFirstOrThrow({ where: { name: orgName } });
    expect(await db().organization.count({ where: { name: orgName } })).toBe(1);
    expect(await spacesNamed(org.id, 'main')).toBe(1);
  });

  it('refuses an --activate model that is not in the catalog with exit 2, and creates nothing', async () => {
    const orgName = `cli-unknown-${uniqueSuffix()}`;
    const run = await cli(['bootstrap', '--org', orgName, '--space', 'main', '--activate', 'test-echo,no-such-model']);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: "error: Model 'no-such-model' is not in the model catalog: check the name, or load the catalog with `npm run db:seed`.\n",
    });
    expect(await db().organization.count({ where: { name: orgName } })).toBe(0);
  });
});

describe('bootstrap --activate', () => {
  it('refuses a catalog model that a service owner disabled, naming it', async () => {
    // Inside a transaction that is rolled back, so no other test file ever sees the disabled public model.
    const rollback = new Error('rollback');
    const name = `cli-disabled-${uniqueSuffix()}`;
    const outcome = ctx.services.db.$transaction(async (tx) => {
      await tx.model.create({ data: { model: name, provider: 'test', namespace: name, is_public: true, globally_disabled: true } });
      await expect(catalogModelIds(tx, ['test-echo', name])).rejects.toMatchObject({
        status: 409,
        param: 'activate',
        message: `Model '${name}' is globally disabled by a service owner and cannot be activated.`,
      });
      throw rollback;
    });
    await expect(outcome).rejects.toBe(rollback);
    expect(await ctx.services.db.model.count({ where: { model: name } })).toBe(0);
  });
});

describe('cli keys', () => {
  let tenant: Tenant;

  beforeAll(async () => {
    tenant = await ctx.tenant();
  });

  it('create, list and revoke round trip; a revoked key gets 401', async () => {
    const create = await cli([
      ...['keys', 'create', '--org-id', tenant.org_id, '--app-id', tenant.app_id],
      ...['--role', 'viewer', '--idp-id', 'ci@example.com', '--name', 'ci', '--json'],
    ]);
    expect(create).toMatchObject({ code: 0, stderr: '' });
    const key = parseJsonLine(create.stdout);
    expect(key).toEqual({
      key_id: expect.stringMatching(UUID),
      api_key: expect.stringMatching(API_KEY),
      key_end: expect.any(String),
      role: 'viewer',
      app_id: tenant.app_id,
      expires_on: null,
      service_owner: false,
    });
    const secret = String(key.api_key);
    expect(key.key_end).toBe(secret.slice(-4));
    const row = await ctx.services.db.apiKey.findUniqueOrThrow({ where: { id: String(key.key_id) }, include: { user: true } });
    expect(row).toMatchObject({ hashed_key: hashApiKey(secret), name: 'ci', user: { idp_id: 'ci@example.com', is_service_owner: false } });
    expect((await request(ctx.app).get('/v1/prompts').set(bearer(secret))).status).toBe(200);

    const list = await cli(['keys', 'list', '--org-id', tenant.org_id, '--json']);
    expect(list.code).toBe(0);
    const listed = parseJsonLine(list.stdout).data as Record<string, unknown>[];
    expect(listed.map((k) => k.id)).toEqual([expect.stringMatching(UUID), key.key_id]);
    expect(listed[1]).toEqual({
      id: key.key_id,
      name: 'ci',
      role: 'viewer',
      key_end: secret.slice(-4),
      app_id: tenant.app_id,
      idp_id: 'ci@example.com',
      added_on: row.added_on.toISOString(),
      last_used_on: expect.any(String),
      revoked_on: null,
    });
    expect(list.stdout).not.toContain(secret);
    expect(list.stdout).not.toContain(row.hashed_key);

    const revoke = await cli(['keys', 'revoke', '--org-id', tenant.org_id, '--key-id', String(key.key_id), '--json']);
    expect(revoke).toMatchObject({ code: 0, stderr: '' });
    expect(parseJsonLine(revoke.stdout)).toEqual({ key_id: key.key_id, revoked_on: expect.any(String) });
    const denied = await request(ctx.app).get('/v1/prompts').set(bearer(secret));
    expect(denied.status).toBe(401);
    expect((await request(ctx.app).get('/v1/prompts').set(tenant.auth)).status).toBe(200);

    const [table, again] = await Promise.all([
      cli(['keys', 'list', '--org-id', tenant.org_id]),
      cli(['keys', 'revoke', '--org-id', tenant.org_id, '--key-id', String(key.key_id)]),
    ]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+ROLE\s+KEY_END\s+APP_ID\s+IDP_ID\s+ADDED_ON\s+LAST_USED_ON\s+REVOKED_ON$/);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toContain(String(key.key_id));
    expect(lines[2]).toMatch(/ci@example\.com\s+\S+Z\s+\S+Z\s+\S+Z$/);
    expect(again).toEqual({ code: 2, stdout: '', stderr: expect.stringMatching(/^error: Key \S+ was already revoked on \S+\.\n$/) });
  });

  it('answers exit 2 for a Space, key or organization that is not the organization’s', async () => {
    const missingOrg = '00000000-0000-4000-8000-000000000000';
    const foreignKeyId = await keyIdOf(other);
    const [foreignApp, foreignKey, unknownOrg] = await Promise.all([
      cli(['keys', 'create', '--org-id', tenant.org_id, '--app-id', other.app_id]),
      cli(['keys', 'revoke', '--org-id', tenant.org_id, '--key-id', foreignKeyId]),
      cli(['keys', 'list', '--org-id', missingOrg]),
    ]);
    const notFound = (message: string) => ({ code: 2, stdout: '', stderr: `error: ${message}\n` });
    expect(foreignApp).toEqual(notFound(`Space ${other.app_id} not found in organization ${tenant.org_id}.`));
    expect(foreignKey).toEqual(notFound(`Key ${foreignKeyId} not found in organization ${tenant.org_id}.`));
    expect(unknownOrg).toEqual(notFound(`Organization ${missingOrg} not found.`));
    expect((await request(ctx.app).get('/v1/prompts').set(other.auth)).status).toBe(200);
    expect(await ctx.services.db.apiKey.count({ where: { org_id: tenant.org_id } })).toBe(2);
  });
});

async function keyIdOf(tenant: Tenant): Promise<string> {
  const key = await ctx.services.db.apiKey.findFirstOrThrow({ where: { org_id: tenant.org_id }, select: { id: true } });
  return key.id;
}

describe('cli spaces', () => {
  it('creates a Space with the default models and lists the organization’s Spaces', async () => {
    const tenant = await ctx.tenant();
    const create = await cli(['spaces', 'create', '--org-id', tenant.org_id, '--name', 'research', '--json']);
    expect(create).toMatchObject({ code: 0, stderr: '' });
    const space = parseJsonLine(create.stdout);
    expect(space).toEqual({ app_id: expect.stringMatching(UUID), name: 'research' });

    const db = ctx.services.db;
    const defaults = await db.appModel.count({ where: { app_id: tenant.app_id, active: true } });
    expect(defaults).toBeGreaterThan(0);
    expect(await db.appModel.count({ where: { app_id: String(space.app_id), active: true } })).toBe(defaults);
    const org = await db.organization.findUniqueOrThrow({ where: { id: tenant.org_id } });
    const app = await db.app.findUniqueOrThrow({ where: { id: String(space.app_id) } });
    expect(app).toMatchObject({ org_id: tenant.org_id, idp_id: `owner@${org.name}`, hashed_key: '', key_end: '' });

    const [json, table] = await Promise.all([cli(['spaces', 'list', '--org-id', tenant.org_id, '--json']), cli(['spaces', 'list', '--org-id', tenant.org_id])]);
    expect(json.code).toBe(0);
    expect(parseJsonLine(json.stdout)).toEqual({
      data: [
        { id: tenant.app_id, name: 'main', is_active: true, sandbox_of: null, added_on: expect.any(String) },
        { id: space.app_id, name: 'research', is_active: true, sandbox_of: null, added_on: expect.any(String) },
      ],
    });
    expect(table.code).toBe(0);
    expect(table.stdout.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^ID {36}NAME {6}ACTIVE {2}SANDBOX_OF {2}ADDED_ON$/),
      expect.stringMatching(new RegExp(`^${tenant.app_id} {2}main {6}yes {5}- {11}\\S+Z$`)),
      expect.stringMatching(new RegExp(`^${String(space.app_id)} {2}research {2}yes {5}- {11}\\S+Z$`)),
    ]);
  });
});

describe('cli exit codes', () => {
  it('answers 2 with a message on stderr for bad usage, and 0 with usage on stdout for --help', async () => {
    // The other usage errors run in-process in test/unit/cli-program.test.ts.
    const [unknownOption, badUuid, help] = await Promise.all([
      cli(['spaces', 'list', '--org-id', other.org_id, '--verbose']),
      cli(['keys', 'list', '--org-id', 'not-a-uuid']),
      cli(['keys', 'revoke', '--help']),
    ]);
    const usage = (message: string) => ({ code: 2, stdout: '', stderr: `error: ${message}\n(add --help for usage)\n` });
    expect(unknownOption).toEqual(usage("unknown option '--verbose'"));
    expect(badUuid).toEqual(usage("option '--org-id <uuid>' argument 'not-a-uuid' is invalid. It must be a uuid."));
    expect(help).toMatchObject({ code: 0, stderr: '', stdout: expect.stringContaining('Usage: cli keys revoke [options]') });
  });

  it('answers 1 with a one-line message when the database is unreachable', async () => {
    const unreachable = { ...process.env, DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/switchyard' };
    const run = await cli(['spaces', 'list', '--org-id', other.org_id], unreachable);
    expect(run).toEqual({ code: 1, stdout: '', stderr: "error: Can't reach database server at 127.0.0.1:1\n" });
  });
});
