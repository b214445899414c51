import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { endpointAccess, endpointProblem } from '../../src/net/endpoint-policy';
import { HostAllowlist } from '../../src/net/host-allowlist';
import { httpPost } from '../../src/providers/http/http-post';
import { createProviderRegistry } from '../../src/providers/registry';
import { customModelKeyContext } from '../../src/secrets/custom-model-key';
import { SecretBox } from '../../src/secrets/secret-box';

/** The SSRF rules of a custom model's base URL, at save time and on every connection. */

const keys = { current: randomBytes(32), previous: [] };

function configAllowing(hosts: string[]): Config {
  const base = loadConfig();
  return { ...base, plugins: { ...base.plugins, net: { ...base.plugins.net, ssrfAllowedHosts: hosts } }, secrets: { keys } };
}

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((_req, res) => res.end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('endpointProblem (when a base URL is saved)', () => {
  const none = new HostAllowlist([]);
  it.each([
    ['http://127.0.0.1:11434/v1', /loopback/],
    ['http://2130706433/v1', /loopback/],
    ['http://[::ffff:10.0.0.1]/v1', /private/],
    ['http://169.254.169.254/', /metadata/],
    ['http://localhost:8000/v1', /loopback/],
    ['ftp://example.com/', /http or https/],
  ])('refuses %s', async (url, reason) => {
    expect(await endpointProblem(url, { allowlist: none })).toMatch(reason);
  });

  it('accepts a public address, and an allowlisted internal host', async () => {
    expect(await endpointProblem('http://93.184.215.14/v1', { allowlist: none })).toBeNull();
    expect(
      await endpointProblem('http://gpu-box:8000/v1', {
        allowlist: new HostAllowlist(['gpu-box:8000']),
        resolve: async () => [{ address: '10.1.2.3', family: 4 }],
      }),
    ).toBeNull();
  });

  it('refuses a name that resolves to a public and an internal address', async () => {
    const resolve = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    expect(await endpointProblem('https://mixed.example/v1', { allowlist: none, resolve })).toMatch(/private/);
  });
});

describe('on every connection', () => {
  it('refuses a literal internal address outright, unless allowlisted', () => {
    expect(endpointAccess('http://127.0.0.1:9/v1', new HostAllowlist([]))).toEqual({ refused: expect.stringMatching(/loopback/) });
    expect(endpointAccess('http://127.0.0.1:9/v1', new HostAllowlist(['127.0.0.1']))).toEqual({});
  });

  it('checks a host name as it resolves (DNS may have changed since it was saved)', async () => {
    const access = endpointAccess(`http://localhost:${port}/v1`, new HostAllowlist([]));
    if ('refused' in access) throw new Error('a name is judged when it resolves');
    const call = httpPost({
      url: `http://localhost:${port}/v1/chat/completions`,
      headers: {},
      body: '{}',
      signal: new AbortController().signal,
      lookup: access.lookup,
    });
    await expect(call).rejects.toThrow(/loopback/);
  });
});

describe('the provider registry for a custom model', () => {
  const box = new SecretBox(keys);
  const endpoint = (baseUrl: string, sealedApiKey: string | null) => ({ baseUrl, sealedApiKey });

  it("binds the model's provider adapter to its own base URL with its opened key", () => {
    const registry = createProviderRegistry(configAllowing(['127.0.0.1']));
    const sealed = box.seal('sk-own', customModelKeyContext('m1'));
    const binding = registry.resolve({ id: 'm1', provider: 'openai-compatible', endpoint: endpoint('http://127.0.0.1:1234/v1', sealed) });
    expect(binding).toMatchObject({ apiKey: 'sk-own', baseUrl: 'http://127.0.0.1:1234/v1' });
    expect(binding?.provider.id).toBe('openai-compatible');
  });

  it('has no binding for the generic provider without an endpoint (nothing configures it)', () => {
    expect(createProviderRegistry(configAllowing([])).resolve({ provider: 'openai-compatible' })).toBeNull();
  });

  it('leaves the model unavailable when its address is refused or its key does not open here', () => {
    const registry = createProviderRegistry(configAllowing([]));
    expect(registry.resolve({ id: 'm1', provider: 'vllm', endpoint: endpoint('http://127.0.0.1:1234/v1', null) })).toBeNull();
    const allowing = createProviderRegistry(configAllowing(['127.0.0.1']));
    const sealedForAnother = box.seal('sk-own', customModelKeyContext('m2'));
    expect(allowing.resolve({ id: 'm1', provider: 'vllm', endpoint: endpoint('http://127.0.0.1:1234/v1', sealedForAnother) })).toBeNull();
  });
});
