import { Prisma } from '../../src/generated/prisma/client';
import { toApiError } from '../../src/http/error-handler';
import { CommandTimeoutError } from '../../src/queue/command-timeout';

describe('toApiError', () => {
  it('answers a saturated database (P2028) with 503 and Retry-After, not 500', () => {
    const err = new Prisma.PrismaClientKnownRequestError('Transaction API error: Unable to start a transaction in the given time.', {
      code: 'P2028',
      clientVersion: '7',
    });
    const apiError = toApiError(err);
    expect(apiError?.status).toBe(503);
    expect(apiError?.headers).toEqual({ 'Retry-After': '1' });
    expect(apiError?.toBody()).toEqual({
      error: { message: 'The service is busy; retry shortly.', type: 'server_error', code: 'service_unavailable', param: null },
    });
  });

  it('answers a Redis command that timed out with 503 naming the wait, and Redis away otherwise without one', () => {
    expect(toApiError(new CommandTimeoutError(3000))?.toBody().error.message).toBe(
      'The service is briefly unavailable (a Redis command had no answer within 3000 ms); retry shortly.',
    );
    const refused = toApiError(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    expect(refused?.status).toBe(503);
    expect(refused?.toBody().error.message).toBe('The service is briefly unavailable; retry shortly.');
  });

  it('leaves other database errors unknown (a 500 naming the request id)', () => {
    const err = new Prisma.PrismaClientKnownRequestError('Unique constraint failed', { code: 'P2002', clientVersion: '7' });
    expect(toApiError(err)).toBeNull();
  });

  it('answers a path Express cannot decode with a 404 naming the route', () => {
    expect(toApiError(new URIError('URI malformed'), 'GET /docs/assets/%ff')?.toBody()).toEqual({
      error: { message: 'No route for GET /docs/assets/%ff.', type: 'not_found_error', code: 'not_found', param: null },
    });
  });
});
