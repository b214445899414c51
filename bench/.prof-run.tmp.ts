import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { createDatabase, databaseUrlFor, dropDatabase, uniqueSuffix } from '../test/helpers/test-database';
import { migrate } from '../src/store/migrations';
import { startSimulator } from '../test/simulator/server';
import { ADVERSARIAL_TEXTS } from '../test/fixtures/adversarial-text';

async function main() {
  const shapes = (process.env.SHAPES ?? 'random letters,many tiny messages').split(',');
  const name = `switchyard_prof_${uniqueSuffix()}`;
  await createDatabase(name);
  const url = databaseUrlFor(name);
  await migrate(url);
  const sim = await startSimulator({ record: false });
  Object.assign(process.env, { DATABASE_URL: url, REDIS_PREFIX: `prof_${uniqueSuffix()}`, OPENAI_API_KEY: 'x', OPENAI_BASE_URL: sim.baseUrls.openai, LOG_LEVEL: 'warn', SWITCHYARD_ROLE: 'single', PORT: '0' });
  const { loadConfig } = await import('../src/config/load');
  const { createLogger } = await import('../src/logging/logger');
  const { startRuntime } = await import('../src/runtime');
  const { bootstrapTenant } = await import('../src/services/tenancy/bootstrap');
  const { createDb } = await import('../src/store/db');
  const config = loadConfig();
  const runtime = await startRuntime(config, createLogger('warn'));
  const db = createDb(url);
  const tenant = await bootstrapTenant(db, { org: 'prof', space: 'prof', rateLimit: 0 });
  await db.appModel.updateMany({ where: { app_id: tenant.app_id }, data: { active: false } });
  const row = await db.model.create({ data: { model: 'prof-model', provider: 'openai', namespace: 'prof-model', org_id: tenant.org_id, prompt_token_cost: 1e-6, completion_token_cost: 2e-6, context_window: 10_000_000, supports_functions: true, supports_json: true, quality_profile: { overall: 0.9, categories: {} } } });
  await db.appModel.create({ data: { app_id: tenant.app_id, model_id: row.id, active: true } });
  const base = `http://127.0.0.1:${runtime.port}`;
  const send = (messages: unknown) => fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${tenant.api_key}`, 'content-type': 'application/json' }, body: JSON.stringify({ messages }) }).then(async (r) => { await r.text(); return r.status; });
  for (let i = 0; i < 5; i++) await send([{ role: 'user', content: 'hello' }]);
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  for (const shape of shapes) {
    const texts = ADVERSARIAL_TEXTS[shape]!(900 * 1024);
    const messages = texts.map((content) => ({ role: 'user', content }));
    await session.post('Profiler.start');
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < 4; i++) console.log(shape, await send(messages));
    const cpu = process.cpuUsage(cpu0);
    const { profile } = await session.post('Profiler.stop');
    console.log(shape, 'cpu ms per request', ((cpu.user + cpu.system) / 1000 / 4).toFixed(1));
    writeFileSync(`/tmp/profwork/${shape.replace(/\W+/g, '-')}.cpuprofile`, JSON.stringify(profile));
  }
  await runtime.stop();
  await db.$disconnect();
  await sim.close();
  await dropDatabase(name);
  process.exit(0);
}
main().catch((e) => { console.error(e); process.exit(1); });
