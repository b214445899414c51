import { Writable } from 'node:stream';
import { createLogger } from '../../src/logging/logger';

/** What a logger wrote, line by line. */
function capture(): { logger: ReturnType<typeof createLogger>; lines: () => Record<string, unknown>[] } {
  let text = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  const logger = createLogger('info', {}, destination);
  const lines = () =>
    text
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, lines };
}

describe('logger redaction', () => {
  it('never writes a key sent as Authorization or as x-api-key (Anthropic clients)', async () => {
    const { logger, lines } = capture();
    logger.info({ req: { headers: { authorization: 'Bearer sk-one', 'x-api-key': 'sk-two' } }, headers: { 'x-api-key': 'sk-three' } }, 'request');
    await new Promise((resolve) => setImmediate(resolve));
    const written = JSON.stringify(lines());
    expect(written).toContain('[redacted]');
    for (const secret of ['sk-one', 'sk-two', 'sk-three']) expect(written).not.toContain(secret);
  });
});
