import type { Log, Prisma } from '../../generated/prisma/client';
import type { LogStepView } from '../../schemas/logs';

const isObject = (json: Prisma.JsonValue): json is Prisma.JsonObject => typeof json === 'object' && json !== null && !Array.isArray(json);

/**
 * What a step's log is, read from the payload its row keeps (`{ step: 'model' | 'plugin', plugin, ... }`,
 * see pipeline/log-rows.ts): a plugin run, named by its plugin id, or a model call. A child row written
 * before steps were marked is a model call (only model calls had rows then). Null for a request's own log.
 */
export function stepOf(row: Pick<Log, 'parent_id' | 'payload' | 'namespace'>): LogStepView | null {
  if (row.parent_id === null) return null;
  const payload = isObject(row.payload) ? row.payload : {};
  const isPlugin = payload.step === 'plugin' || (payload.step === undefined && typeof payload.plugin === 'string');
  if (!isPlugin) return { kind: 'model', plugin: null };
  return { kind: 'plugin', plugin: typeof payload.plugin === 'string' ? payload.plugin : row.namespace };
}
