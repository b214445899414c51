import { randomUUID } from 'node:crypto';
import { useSimulatedHarness } from '../helpers/completions';
import { complete, completeStream, isolatedSpace, logsOf, script, sseEvents, nth, userMessage } from '../helpers/completion-fixtures';
import type { RecordedRequest } from '../simulator/server';

const env = useSimulatedHarness();

/** A Space whose one model is served by the given adapter (all three speak to the simulator). */
async function spaceOn(provider: 'openai' | 'anthropic' | 'gemini', policies: object = {}) {
  const space = await isolatedSpace(env.h, { models: [{ name: 'answering' }], update: { policies: { privacy_level: 1, ...policies } } });
  const model = await env.h.services.db.model.update({ where: { id: space.models.answering.id }, data: { provider } });
  return { tenant: space.tenant, model };
}

/** Upstream calls that carried this marker value. */
const callsMarked = (marker: string): RecordedRequest[] => env.sim.requests.filter((r) => r.headers['x-trace-marker'] === marker);

describe('custom_headers.headers', () => {
  it.each(['openai', 'anthropic', 'gemini'] as const)('reach the %s upstream, whole and streamed, beside its own credentials', async (provider) => {
    const { tenant } = await spaceOn(provider);
    for (const stream of [false, true]) {
      const marker = randomUUID();
      const body = {
        model: 'answering',
        messages: userMessage('Hi'),
        custom_headers: { headers: { 'X-Trace-Marker': marker, 'anthropic-beta': 'tools-2024' } },
      };
      const res = stream ? await completeStream(env.h, tenant, body) : await complete(env.h, tenant, body);
      expect(res.status).toBe(200);
      const [call, ...others] = callsMarked(marker);
      expect(others).toHaveLength(0);
      expect(call).toMatchObject({ dialect: `/${provider}`, headers: { 'anthropic-beta': 'tools-2024' } });
      const credential = call?.headers.authorization ?? call?.headers['x-api-key'] ?? call?.headers['x-goog-api-key'] ?? call?.path;
      expect(credential).toContain('sim-key');
      expect(call?.headers['content-type']).toBe('application/json');
    }
  });

  it('go with every upstream call of the request, retries included', async () => {
    const { tenant, model } = await spaceOn('openai');
    script(env.sim, model, [{ kind: 'status', status: 503 }, { kind: 'ok' }]);
    const marker = randomUUID();
    const res = await complete(env.h, tenant, { model: 'answering', messages: userMessage('Hi'), custom_headers: { headers: { 'x-trace-marker': marker } } });
    expect(res.status).toBe(200);
    expect(callsMarked(marker)).toHaveLength(2);
  });

  it.each([
    ['Authorization', 'Bearer stolen'],
    ['x-api-key', 'other'],
    ['X-Goog-Api-Key', 'other'],
    ['Host', 'evil.example'],
    ['content-length', '1'],
    ['Content-Type', 'text/plain'],
    ['transfer-encoding', 'chunked'],
    ['Connection', 'close'],
    ['upgrade', 'h2c'],
    ['proxy-authorization', 'Basic x'],
    ['bad name', 'x'],
    ['x-ok', 'line\r\nx-injected: 1'],
    ['x-ok', 'caf\u00e9'],
  ])('refuse %s at the edge, naming it', async (name, value) => {
    const { tenant } = await spaceOn('openai');
    const marker = randomUUID();
    const res = await complete(env.h, tenant, { messages: userMessage('Hi'), custom_headers: { headers: { [name]: value, 'x-trace-marker': marker } } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param: `custom_headers.headers.${name}` });
    expect(callsMarked(marker)).toHaveLength(0);
  });

  it('refuse a name given twice in different cases', async () => {
    const { tenant } = await spaceOn('openai');
    const res = await complete(env.h, tenant, { messages: userMessage('Hi'), custom_headers: { headers: { 'X-Team': 'a', 'x-team': 'b' } } });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('custom_headers.headers.x-team');
  });

  it('keep their values out of the log from privacy level 2, names kept', async () => {
    const secret = `token-${randomUUID()}`;
    for (const level of [1, 2]) {
      const { tenant } = await spaceOn('openai', { privacy_level: level });
      const res = await completeStream(env.h, tenant, { messages: userMessage('Hi'), custom_headers: { headers: { 'x-client-token': secret } } });
      expect(res.status).toBe(200);
      const { parent } = await logsOf(env.h, nth(sseEvents(res.text), 0).id as string);
      const stored = (parent.payload as { custom_headers: { headers: Record<string, string> } }).custom_headers.headers;
      expect(stored).toEqual({ 'x-client-token': level === 1 ? secret : '[masked]' });
    }
  });
});
