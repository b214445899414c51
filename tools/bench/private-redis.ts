import { spawn, spawnSync } from 'node:child_process';
import { freePort } from '../../test/helpers/free-port';

/**
 * A redis-server of the run's own on a free loopback port, without persistence: nothing but the run's
 * processes send it commands, so its counts (INFO commandstats) and CPU are the run's alone.
 */
export async function privateRedis(): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const deadline = Date.now() + 10_000;
  while (spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout?.trim() !== 'PONG') {
    if (Date.now() > deadline) {
      server.kill('SIGKILL');
      throw new Error(`redis-server on ${port} did not start`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: `redis://127.0.0.1:${port}`, stop: () => server.kill('SIGKILL') };
}
