import { Writable } from 'node:stream';
import { createLogger } from '../../src/logging/logger';
import { lazyChild } from '../../src/logging/lazy-child';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger(level, {}, sink), lines };
}

describe('lazyChild', () => {
  it('makes no child until a line is logged at a level the parent logs', () => {
    const { logger } = capture('warn');
    const child = jest.spyOn(logger, 'child');
    const lazy = lazyChild(logger, { request_id: 'r1' });
    lazy.info('not logged');
    lazy.debug({ detail: 1 }, 'not logged either');
    expect(child).not.toHaveBeenCalled();
    lazy.warn('logged');
    lazy.error('logged too');
    expect(child).toHaveBeenCalledTimes(1);
  });

  it('logs with its bindings, and a lazy child of a lazy child with both', async () => {
    const { logger, lines } = capture('info');
    const request = lazyChild(logger, { request_id: 'r1' });
    const keyed = lazyChild(request, { org_id: 'o1' });
    keyed.info({ step: 1 }, 'hello');
    request.warn('plain');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toEqual([
      expect.objectContaining({ request_id: 'r1', org_id: 'o1', step: 1, msg: 'hello', level: 30 }),
      expect.objectContaining({ request_id: 'r1', msg: 'plain', level: 40 }),
    ]);
    expect(lines[1]).not.toHaveProperty('org_id');
  });
});
