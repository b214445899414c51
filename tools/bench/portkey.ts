import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { freePort, ROOT, stopChild, waitFor200, type Managed } from './processes';

/** The Portkey gateway's Node entry, as its README starts it (`npx @portkey-ai/gateway`). */
const PORTKEY_ENTRY = path.join(ROOT, 'node_modules/@portkey-ai/gateway/build/start-server.js');

/**
 * The Portkey gateway (`@portkey-ai/gateway`, a TypeScript gateway with no queue and no request log)
 * started headless on its own port, as the benchmark's peer: it is called with `x-portkey-provider:
 * openai` and `x-portkey-custom-host` pointing at the same local upstream Switchyard calls.
 */
export async function startPortkey(logFile: string): Promise<Managed & { url: string }> {
  const port = await freePort();
  const out = openSync(logFile, 'w');
  const child = spawn(process.execPath, [PORTKEY_ENTRY, '--headless', `--port=${port}`], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  const url = `http://127.0.0.1:${port}`;
  await waitFor200(`${url}/`, 30_000, () => child.exitCode === null);
  return { name: 'portkey', child, logFile, url, stop: () => stopChild(child, 5000) };
}

/** Headers that make Portkey call the OpenAI-format upstream at `upstreamBaseUrl` (ending in /v1). */
export function portkeyHeaders(upstreamBaseUrl: string): Record<string, string> {
  return { authorization: 'Bearer bench', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': upstreamBaseUrl };
}
