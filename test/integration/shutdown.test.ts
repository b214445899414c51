import { connect } from 'node:net';
import { loadConfig } from '../../src/config/load';
import { createLogger } from '../../src/logging/logger';
import { startRuntime } from '../../src/app/runtime';
import { createTestContext } from '../helpers/test-context';

/** Sends a POST whose body arrives in two parts, so the request is in flight while the server shuts down. */
function slowPost(port: number, apiKey: string, body: string) {
  const socket = connect(port, '127.0.0.1');
  const half = Math.floor(body.length / 2);
  let received = '';
  const response = new Promise<string>((resolve, reject) => {
    socket.on('data', (chunk) => {
      received += chunk.toString();
    });
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
  });
  const headers = [
    'POST /v1/prompts HTTP/1.1',
    'Host: 127.0.0.1',
    `Authorization: Bearer ${apiKey}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');
  socket.write(headers + body.slice(0, half));
  return { finish: () => socket.write(body.slice(half)), response };
}

describe('graceful shutdown', () => {
  it('stops taking connections but lets a running request finish', async () => {
    const ctx = createTestContext();
    const tenant = await ctx.tenant();
    const runtime = await startRuntime({ ...loadConfig(), port: 0, host: '127.0.0.1', role: 'all' }, createLogger('silent'));
    const port = runtime.port ?? 0;
    try {
      const inFlight = slowPost(port, tenant.api_key, JSON.stringify({ prompt: 'p', title: 'in flight', description: 'd' }));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const stopped = runtime.stop();
      await new Promise((resolve) => setTimeout(resolve, 100));
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
      inFlight.finish();
      expect(await inFlight.response).toMatch(/^HTTP\/1\.1 201/);
      await stopped;
      expect(await ctx.services.db.prompt.count({ where: { org_id: tenant.org_id, title: 'in flight' } })).toBe(1);
    } finally {
      await ctx.close();
    }
  });
});
