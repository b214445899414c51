/**
 * A worker that takes one slot of a backend and holds it until it is killed: the backend-limits
 * test kills it with SIGKILL to show that a dead worker's slot comes back when its lease expires.
 * argv: redis URL, prefix, backend key, lease in ms.
 */
import { Redis } from 'ioredis';
import pino from 'pino';
import { BackendLimiter } from '../../../src/plugins/backend-limits';

const [redisUrl, prefix, key, leaseMs] = process.argv.slice(2) as [string, string, string, string];
const limiter = new BackendLimiter(new Redis(redisUrl), prefix, pino({ level: 'silent' }));

void limiter.run(
  key,
  1,
  () =>
    new Promise<never>(() => {
      process.stdout.write('holding\n');
    }),
  { signal: new AbortController().signal, deadline: Date.now() + 10_000, leaseMs: Number(leaseMs) },
);
