import type { Db } from '../../../src/store/db';
import { sleep } from './traffic';

/** Of these log ids, those with no log row yet. */
async function missing(db: Db, ids: string[]): Promise<string[]> {
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await db.log.findMany({ where: { id: { in: ids.slice(i, i + 1000) } }, select: { id: true } });
    for (const row of rows) found.add(row.id);
  }
  return ids.filter((id) => !found.has(id));
}

/**
 * Accepted requests (they got `x-switchyard-log-id`) whose log is still missing after `graceMs`:
 * lost logs. Polls, so a run where every log arrives does not wait the whole grace period.
 */
export async function lostLogs(db: Db, logIds: string[], graceMs: number): Promise<string[]> {
  const deadline = Date.now() + graceMs;
  let absent = await missing(db, [...new Set(logIds)]);
  while (absent.length > 0 && Date.now() < deadline) {
    await sleep(250);
    absent = await missing(db, absent);
  }
  return absent;
}

/** Request logs (parents) of these tags stored at privacy level 1 with prompt or response text. */
export async function storedInFull(db: Db, appId: string, tags: string[]): Promise<number> {
  if (tags.length === 0) return 0;
  const rows = await db.log.findMany({
    where: { app_id: appId, parent_id: null, privacy_level: 1 },
    select: { labels: true, prompt: true, response_text: true },
  });
  const wanted = new Set(tags);
  return rows.filter((row) => {
    const tag = (row.labels as { reliability?: unknown } | null)?.reliability;
    const hasText = Boolean(row.prompt && row.prompt !== '[masked]') || Boolean(row.response_text && row.response_text !== '[masked]');
    return typeof tag === 'string' && wanted.has(tag) && hasText;
  }).length;
}
