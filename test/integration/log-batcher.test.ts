import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { LogBatcher } from '../../src/pipeline/log-batcher';
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
  const base = { org_id: tenant.org_id, app_id: tenant.app_id, timestamp: BigInt(Date.now()) };
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

  it('loses only the bad request of a batch', async () => {
    const good = rowsFor('fine');
    const duplicate = rowsFor('again');
    await batcher.write(duplicate);
    const results = await Promise.allSettled([batcher.write(good), batcher.write(duplicate)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect(await ctx.services.db.log.count({ where: { id: good.parent.id } })).toBe(1);
  });
});
