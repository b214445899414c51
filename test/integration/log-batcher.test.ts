import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { LogBatcher } from '../../src/store/log-batcher';
import type { LogRow } from '../../src/pipeline/log-rows';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';

let ctx: TestContext;
let tenant: Tenant;
let batcher: LogBatcher;

beforeAll(async () => {
  ctx = createTestContext();
  tenant = await ctx.tenant();
  batcher = new LogBatcher(ctx.services.db, pino({ level: 'silent' }));
});
afterAll(async () => {
  await batcher.close();
  await ctx.close();
});

function rowsFor(text: string): { parent: LogRow; children: LogRow[] } {
  const id = randomUUID();
  const base = { org_id: tenant.org_id, app_id: tenant.app_id, timestamp: Date.now() };
  return {
    parent: { ...base, id, response_text: text, response: { choices: [{ message: { role: 'assistant', content: text } }] } },
    children: [{ ...base, id: randomUUID(), parent_id: id, response_text: text }],
  };
}

describe('the log batcher', () => {
  it('resolves a write only once its rows are committed, for every write of a burst', async () => {
    const writes = Array.from({ length: 60 }, (_, i) => rowsFor(`answer ${i}`));
    const seen = await Promise.all(
      writes.map(async (rows) => {
        await batcher.write(rows);
        return ctx.services.db.log.count({ where: { OR: [{ id: rows.parent.id }, { parent_id: rows.parent.id }] } });
      }),
    );
    expect(seen).toEqual(writes.map(() => 2));
  });

  it('stores an answer that carries NUL (which PostgreSQL refuses) with U+FFFD in its place', async () => {
    const rows = rowsFor('before\u0000after');
    await batcher.write(rows);
    const parent = await ctx.services.db.log.findUniqueOrThrow({ where: { id: rows.parent.id } });
    expect(parent.response_text).toBe('before\uFFFDafter');
    expect(parent.response).toEqual({ choices: [{ message: { role: 'assistant', content: 'before\uFFFDafter' } }] });
    expect(await ctx.services.db.log.count({ where: { parent_id: rows.parent.id } })).toBe(1);
  });

  it('writes children that set different columns, a column left out taking its default', async () => {
    const rows = rowsFor('with a plugin');
    // A plugin step's row sets no token counts (NOT NULL, default 0); a model step's does.
    const plugin: LogRow = {
      org_id: tenant.org_id,
      app_id: tenant.app_id,
      timestamp: Date.now(),
      id: randomUUID(),
      parent_id: rows.parent.id,
      namespace: 'web-search',
      total_tokens_cost: 0.001,
    };
    const model: LogRow = { ...plugin, id: randomUUID(), namespace: 'openai/gpt-4o-mini', prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 };
    const others = Array.from({ length: 5 }, (_, i) => rowsFor(`burst ${i}`));
    await Promise.all([batcher.write({ ...rows, children: [model, plugin] }), ...others.map((other) => batcher.write(other))]);
    const stored = await ctx.services.db.log.findUniqueOrThrow({ where: { id: plugin.id } });
    expect({ prompt: stored.prompt_tokens, total: stored.total_tokens, cost: stored.total_tokens_cost }).toEqual({ prompt: 0, total: 0, cost: 0.001 });
    expect(await ctx.services.db.log.count({ where: { parent_id: rows.parent.id } })).toBe(2);
  });

  it('loses only the bad request of a batch', async () => {
    const good = rowsFor('fine');
    // A Space that does not exist: the foreign key refuses the row.
    const bad = rowsFor('nowhere');
    bad.parent.app_id = randomUUID();
    const results = await Promise.allSettled([batcher.write(good), batcher.write(bad)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect(await ctx.services.db.log.count({ where: { id: good.parent.id } })).toBe(1);
    expect(await ctx.services.db.log.count({ where: { id: bad.parent.id } })).toBe(0);
  });

  it('writes a request’s log twice without an error, keeping the first log and its steps only', async () => {
    const first = rowsFor('first run');
    await batcher.write(first);
    const again = rowsFor('second run');
    const rerun = { parent: { ...again.parent, id: first.parent.id }, children: again.children.map((child) => ({ ...child, parent_id: first.parent.id })) };
    // Alone, and then in a batch with other requests, which are all written.
    await expect(batcher.write(rerun)).resolves.toBeUndefined();
    const others = Array.from({ length: 5 }, (_, i) => rowsFor(`beside ${i}`));
    await Promise.all([batcher.write(rerun), ...others.map((other) => batcher.write(other))]);
    const parent = await ctx.services.db.log.findUniqueOrThrow({ where: { id: first.parent.id } });
    expect(parent.response_text).toBe('first run');
    const children = await ctx.services.db.log.findMany({ where: { parent_id: first.parent.id } });
    expect(children.map((child) => child.id)).toEqual(first.children.map((child) => child.id));
    expect(await ctx.services.db.log.count({ where: { id: { in: others.map((other) => String(other.parent.id)) } } })).toBe(5);
  });

  it('writes one log for a request written twice in the same batch', async () => {
    const rows = rowsFor('twice at once');
    const copy = { parent: { ...rows.parent }, children: rows.children.map((child) => ({ ...child, id: randomUUID() })) };
    await Promise.all([batcher.write(rows), batcher.write(copy), batcher.write(rowsFor('a third request'))]);
    expect(await ctx.services.db.log.count({ where: { id: rows.parent.id } })).toBe(1);
    expect(await ctx.services.db.log.count({ where: { parent_id: rows.parent.id } })).toBe(1);
  });
});
