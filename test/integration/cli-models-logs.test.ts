import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import request from 'supertest';
import { CliSession } from '../../src/cli/context';
import { runCli } from '../../src/cli/program';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { MASK } from '../../src/pipeline/privacy';
import { eventually, isolatedSpace, logsOf } from '../helpers/completion-fixtures';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import type { Tenant } from '../helpers/test-context';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * The CLI's models, orgs and logs commands against the test run's database and Redis, in-process
 * (runCli with the harness's configuration) and once as the real process an operator starts.
 */

const ROOT = path.resolve(__dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
jest.setTimeout(120_000);

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

let sim: Simulator;
let h: CompletionsHarness;
let tenant: Tenant;
let config: Config;

/** The CLI in-process with this configuration (the harness's, or one changed for a test). */
async function cliWith(
  withConfig: Config,
  argv: string[],
  { signal, onOut }: { signal?: AbortSignal; onOut?: (text: string) => void } = {},
): Promise<Captured> {
  let stdout = '';
  let stderr = '';
  const io = {
    out: (text: string) => {
      stdout += text;
      onOut?.(stdout);
    },
    err: (text: string) => void (stderr += text),
  };
  const code = await runCli(argv, { session: new CliSession(() => withConfig), io, signal });
  return { code, stdout, stderr };
}

const cli = (argv: string[], signal?: AbortSignal, onOut?: (text: string) => void) => cliWith(config, argv, { signal, onOut });

const jsonLines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const complete = (t: Tenant, model: string, content = 'Hello from the CLI test') =>
  request(h.app)
    .post('/v1/chat/completions')
    .set(t.auth)
    .send({ model, messages: [{ role: 'user', content }] });

interface Row {
  model: string;
  active: boolean;
  kind: string;
  prompt_per_1m: number;
}

async function listed(t: Tenant): Promise<Row[]> {
  const run = await cli(['models', 'list', '--all', '--space', t.app_id, '--json']);
  expect(run).toMatchObject({ code: 0, stderr: '' });
  return (JSON.parse(run.stdout) as { data: Row[] }).data;
}

beforeAll(async () => {
  sim = await startSimulator();
  const plugins = loadConfig().plugins;
  h = startCompletionsHarness({
    providers: simulatedProviders(sim),
    plugins: { ...plugins, net: { ...plugins.net, ssrfAllowedHosts: ['127.0.0.1'] } },
    secrets: { keys: { current: randomBytes(32), previous: [] } },
  });
  config = h.services.config;
  tenant = await h.tenant();
});
afterAll(async () => {
  await h.close();
  await sim.close();
});

describe('models list / enable / disable', () => {
  it("lists the Space's models with provider, state and prices per 1M tokens, as a table or JSON", async () => {
    const rows = await listed(tenant);
    expect(rows.find((r) => r.model === 'gpt-4.1-mini')).toMatchObject({ kind: 'catalog', prompt_per_1m: expect.any(Number) });
    const table = await cli(['models', 'list', '--space', 'main', '--org-id', tenant.org_id]);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+PROVIDER\s+KIND\s+ACTIVE\s+PROMPT_PER_1M\s+COMPLETION_PER_1M\s+CONTEXT\s+AVAILABLE$/);
    expect(table.stdout).toMatch(/\ngpt-4\.1-mini\s+openai\s+catalog\s+yes\s+[\d.]+\s+[\d.]+\s+\d+\s+yes\n/);
  });

  it('lists only what can answer now; --all adds the rest with the reason, as GET /v1/models?all=true gives it', async () => {
    const t = await h.tenant();
    await cli(['models', 'enable', '--space', t.app_id, 'gpt-4.1-mini', 'claude-haiku-4-5']);
    await cli(['models', 'disable', '--space', t.app_id, 'gpt-4.1-nano']);
    // The same service without Anthropic's key.
    const withoutAnthropic: Config = { ...config, providers: { ...config.providers, anthropic: { baseUrl: config.providers.anthropic.baseUrl } } };
    const run = (argv: string[]) => cliWith(withoutAnthropic, argv);

    const json = await run(['models', 'list', '--space', t.app_id, '--json']);
    const names = (JSON.parse(json.stdout) as { data: Row[] }).data.map((r) => r.model);
    expect(names).toContain('gpt-4.1-mini');
    expect(names).not.toContain('claude-haiku-4-5');
    expect(names).not.toContain('gpt-4.1-nano');

    const all = await run(['models', 'list', '--all', '--space', t.app_id, '--json']);
    const rows = (JSON.parse(all.stdout) as { data: (Row & { available: boolean; unavailable_reason: unknown })[] }).data;
    expect(rows.find((r) => r.model === 'claude-haiku-4-5')).toMatchObject({
      active: true,
      available: false,
      unavailable_reason: { code: 'provider_key_missing', message: 'ANTHROPIC_API_KEY is not set' },
    });
    expect(rows.find((r) => r.model === 'gpt-4.1-nano')).toMatchObject({
      active: false,
      available: false,
      unavailable_reason: { code: 'not_active_in_space' },
    });

    const table = await run(['models', 'list', '--all', '--space', t.app_id]);
    expect(table.stdout).toMatch(/\nclaude-haiku-4-5\s+anthropic\s+catalog\s+yes\s+.*no: ANTHROPIC_API_KEY is not set \(provider_key_missing\)\n/);
    expect(table.stdout).toMatch(/\ngpt-4\.1-nano\s+openai\s+catalog\s+no\s+.*no: not switched on in this Space \(not_active_in_space\)\n/);
    expect((await run(['models', 'list', '--space', t.app_id])).stdout).not.toContain('claude-haiku-4-5');
  });

  it('switches models on and off by name, as the API then shows', async () => {
    const on = await cli(['models', 'enable', '--space', tenant.app_id, 'gpt-4.1-mini', 'claude-haiku-4-5']);
    expect(on).toMatchObject({ code: 0, stderr: '' });
    expect(on.stdout).toContain('Enabled in Space main');
    const rows = await listed(tenant);
    expect(rows.filter((r) => ['gpt-4.1-mini', 'claude-haiku-4-5'].includes(r.model)).map((r) => r.active)).toEqual([true, true]);
    expect((await complete(tenant, 'claude-haiku-4-5')).status).toBe(200);

    const off = await cli(['models', 'disable', '--space', tenant.app_id, 'claude-haiku-4-5', '--json']);
    expect(JSON.parse(off.stdout)).toMatchObject({ data: [{ model: 'claude-haiku-4-5', active: false }] });
    const refused = await complete(tenant, 'claude-haiku-4-5');
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('model_not_available');
  });

  it('refuses unknown names (exit 2) naming the close ones, and changes nothing', async () => {
    const run = await cli(['models', 'enable', '--space', tenant.app_id, 'gpt-41-mini', 'claud-haiku-4-5', 'gpt-4.1-nano']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain("No model 'gpt-41-mini' in this Space. Did you mean 'gpt-4.1-mini'");
    expect(run.stderr).toContain("No model 'claud-haiku-4-5' in this Space. Did you mean 'claude-haiku-4-5'");
    expect((await listed(tenant)).find((r) => r.model === 'gpt-4.1-nano')?.active).toBe(false);
  });

  it('refuses an unknown Space with exit 2', async () => {
    const run = await cli(['models', 'list', '--space', 'no-such-space']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("No Space 'no-such-space'");
  });
});

describe('models add-custom / remove-custom', () => {
  const add = (extra: string[]) =>
    cli([
      'models',
      'add-custom',
      '--space',
      tenant.app_id,
      '--name',
      'cli-llama',
      '--base-url',
      sim.baseUrls.openai,
      '--upstream-model',
      'cli-llama-upstream',
      '--context-window',
      '8000',
      ...extra,
    ]);

  it('adds one with the key from the environment (never printed); enabled by name, it answers at its own URL with its key', async () => {
    process.env.CLI_TEST_CUSTOM_KEY = 'sk-cli-custom-99';
    const run = await add([
      '--provider',
      'ollama',
      '--api-key-env',
      'CLI_TEST_CUSTOM_KEY',
      '--prompt-price',
      '0.5',
      '--completion-price',
      '1.5',
      '--like',
      'gpt-4.1-mini',
      '--json',
    ]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).not.toContain('sk-cli-custom-99');
    expect(JSON.parse(run.stdout)).toMatchObject({ model: 'cli-llama', provider: 'ollama', has_api_key: true, org_id: tenant.org_id });

    expect((await listed(tenant)).find((r) => r.model === 'cli-llama')).toMatchObject({ kind: 'custom', active: false, prompt_per_1m: 0.5 });
    expect((await cli(['models', 'enable', '--space', tenant.app_id, 'cli-llama'])).code).toBe(0);
    sim.reset();
    const res = await complete(tenant, 'cli-llama');
    expect(res.status).toBe(200);
    const call = sim.requests.find((r) => (r.body as { model?: string }).model === 'cli-llama-upstream');
    expect(call?.headers.authorization).toBe('Bearer sk-cli-custom-99');
    const { parent } = await logsOf(h, res.body.id);
    expect(parent.prompt_tokens_cost).toBeCloseTo((res.body.usage.prompt_tokens * 0.5) / 1e6, 12);
  });

  it('refuses what the API refuses, naming the option (exit 2)', async () => {
    const internal = await cli([
      'models',
      'add-custom',
      '--org-id',
      tenant.org_id,
      '--name',
      'x1',
      '--base-url',
      'http://10.0.0.1/v1',
      '--upstream-model',
      'x',
      '--context-window',
      '8000',
      '--quality',
      '0.5',
    ]);
    expect(internal.code).toBe(2);
    expect(internal.stderr).toMatch(/private.*\(option --base-url\)/);
    const noQuality = await cli([
      'models',
      'add-custom',
      '--org-id',
      tenant.org_id,
      '--name',
      'x2',
      '--base-url',
      sim.baseUrls.openai,
      '--upstream-model',
      'x',
      '--context-window',
      '8000',
    ]);
    expect(noQuality.code).toBe(2);
    expect(noQuality.stderr).toContain('--like or --quality');
    const taken = await add(['--quality', '0.5']);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toContain("'cli-llama' already exists");
  });

  it('removes one by name; an unknown name gets close names', async () => {
    const wrong = await cli(['models', 'remove-custom', '--org-id', tenant.org_id, 'cli-lama']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("Did you mean 'cli-llama'?");
    const run = await cli(['models', 'remove-custom', '--org-id', tenant.org_id, 'cli-llama']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect((await listed(tenant)).map((r) => r.model)).not.toContain('cli-llama');
    expect((await complete(tenant, 'cli-llama')).status).toBe(404);
  });
});

describe('orgs list', () => {
  it('lists organizations with their Spaces', async () => {
    const run = await cli(['orgs', 'list', '--json']);
    expect(run.code).toBe(0);
    const { data } = JSON.parse(run.stdout) as { data: { id: string; spaces: number }[] };
    expect(data.find((o) => o.id === tenant.org_id)).toMatchObject({ spaces: 1 });
    expect((await cli(['orgs', 'list'])).stdout).toMatch(/^ID\s+NAME\s+SPACES\s+ADDED_ON\n/);
  });
});

describe('logs tail', () => {
  it('prints the newest logs oldest first, as JSON lines or one line each', async () => {
    const first = await complete(tenant, 'gpt-4.1-mini', 'first line');
    const second = await complete(tenant, 'gpt-4.1-mini', 'second line');
    await logsOf(h, second.body.id);
    const run = await cli(['logs', 'tail', '--space', tenant.app_id, '--json', '-n', '2']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(jsonLines(run.stdout).map((log) => log.id)).toEqual([first.body.id, second.body.id]);
    const text = await cli(['logs', 'tail', '--org-id', tenant.org_id, '-n', '1']);
    expect(text.stdout).toMatch(/ 200 {2}gpt-4\.1-mini {2}space=.* {2}"second line" -> "Echo: second line"\n$/);
  });

  it('shows no content of a privacy level 2 Space, as the API does', async () => {
    const { tenant: private2 } = await isolatedSpace(h, { models: [{ name: 'answering', gdpr: true }], update: { policies: { privacy_level: 2 } } });
    const res = await complete(private2, 'answering', 'a secret question');
    expect(res.status).toBe(200);
    await logsOf(h, res.body.id);
    const json = await cli(['logs', 'tail', '--space', private2.app_id, '--json']);
    const [log] = jsonLines(json.stdout);
    expect(log).toMatchObject({ id: res.body.id, privacy_level: 2, prompt: MASK, response_text: MASK });
    expect(json.stdout).not.toContain('a secret question');
    const text = await cli(['logs', 'tail', '--space', private2.app_id]);
    expect(text.stdout).toContain('[privacy level 2: content not kept]');
    expect(text.stdout).not.toContain('secret');
  });

  it('--follow prints logs as they are written until stopped', async () => {
    const stop = new AbortController();
    let seen = '';
    const running = cli(['logs', 'tail', '--space', tenant.app_id, '--follow', '--json', '-n', '1', '--interval-ms', '100'], stop.signal, (out) => {
      seen = out;
    });
    await eventually(() => (seen !== '' ? true : null));
    const fresh = await complete(tenant, 'gpt-4.1-mini', 'while following');
    await eventually(() => (seen.includes(fresh.body.id) ? true : null));
    stop.abort();
    const run = await running;
    expect(run.code).toBe(0);
    expect(jsonLines(run.stdout).at(-1)).toMatchObject({ id: fresh.body.id, prompt: 'while following' });
  });
});

describe('the real process', () => {
  // --all: the test run's environment sets no provider key, so without it no model can answer.
  it('`models list --all --space <id>` prints the table and exits 0', async () => {
    const run = await new Promise<Captured>((resolve, reject) => {
      execFile(
        TSX,
        ['src/cli/main.ts', 'models', 'list', '--all', '--space', tenant.app_id],
        { cwd: ROOT, env: process.env, timeout: 60_000 },
        (error, stdout, stderr) => {
          if (error && typeof error.code !== 'number') return reject(error);
          resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
        },
      );
    });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^NAME\s+PROVIDER/);
    expect(run.stdout).toContain('gpt-4.1-mini');
  });
});
