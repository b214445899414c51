import { Redis } from 'ioredis';
import pino from 'pino';
import { RedisCircuitBreakers } from '../../src/resilience/circuit-breakers';
import { eventually } from '../helpers/completion-fixtures';
import { TEST_REDIS_URL, uniqueSuffix } from '../helpers/test-database';

const logger = pino({ level: 'silent' });
const connections: Redis[] = [];
const breakers: RedisCircuitBreakers[] = [];

function connect(): Redis {
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  connections.push(redis);
  return redis;
}

afterAll(async () => {
  breakers.forEach((b) => b.stop());
  await Promise.all(connections.map((redis) => redis.quit().catch(() => undefined)));
});

const settings = { minFailures: 1, failureRatio: 0.5, windowMs: 10_000, cooldownMs: 60_000, maxCooldownMs: 60_000 };

describe("a worker's view of the shared circuit breakers", () => {
  it('drops a breaker closed while its subscription was down, once it reconnects', async () => {
    const prefix = `test-breakers-${uniqueSuffix()}`;
    const shared = connect();
    const subscriber = connect();
    const subscriberId = String(await subscriber.call('CLIENT', 'ID'));
    const one = new RedisCircuitBreakers({ redis: shared, subscriber: connect(), prefix, logger }, settings);
    const other = new RedisCircuitBreakers({ redis: connect(), subscriber, prefix, logger }, settings);
    breakers.push(one, other);
    await Promise.all([one.start(), other.start()]);
    one.record('model-a', 'failure', 'closed');
    await eventually(() => (other.isOpen('model-a') ? true : null));
    // The breaker is closed while the close message cannot reach the other worker (lost with its connection).
    await shared.hdel(`${prefix}:breakers:open`, 'model-a');
    await shared.call('CLIENT', 'KILL', 'ID', subscriberId);
    await eventually(() => (other.isOpen('model-a') ? null : true));
    expect(one.isOpen('model-a')).toBe(true);
    await shared.del(`${prefix}:breakers:open`, `${prefix}:breaker:model-a`, `${prefix}:breaker:model-a:probe`);
  });
});
