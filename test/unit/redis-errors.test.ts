import { ReplyError } from 'ioredis';
import { isRedisUnavailable } from '../../src/queue/redis-errors';
import { toApiError } from '../../src/http/error-handler';

describe('isRedisUnavailable', () => {
  it.each([
    'Connection is closed.',
    'Command timed out',
    'CLUSTERDOWN The cluster is down',
    'TRYAGAIN Multiple keys request during rehashing of slot',
    'MOVED 9573 127.0.0.1:46725',
    'LOADING Redis is loading the dataset in memory',
    'Too many Cluster redirections. Last error: Error: Connection is closed.',
    'connect ECONNREFUSED 127.0.0.1:6390',
  ])('takes "%s" for Redis away', (message) => {
    expect(isRedisUnavailable(new Error(message))).toBe(true);
  });

  it('takes a reply error of a script or a wrong type for a bug, not for Redis away', () => {
    expect(isRedisUnavailable(new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value'))).toBe(false);
    expect(isRedisUnavailable(new ReplyError('ERR Error running script: attempt to compare nil with number'))).toBe(false);
    expect(isRedisUnavailable('Connection is closed.')).toBe(false);
  });

  it('is answered 503 with Retry-After by the one error handler', () => {
    const answer = toApiError(new Error('Connection is closed.'));
    expect(answer).toMatchObject({ status: 503, code: 'service_unavailable', headers: { 'Retry-After': '2' } });
  });
});
