import { Prisma } from '../../src/generated/prisma/client';
import { toApiError } from '../../src/http/error-handler';

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
