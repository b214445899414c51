import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runChildEntry } from '../child-entry';
import { readBody } from '../http-body';
import { failed, FloorReplyRelay } from './reply-relay';

/**
 * The queue floor's API process, on bare node:http: reads the body, enqueues one BullMQ job, and answers
 * with what the worker publishes on this process's channel. No key check, no validation, no routing, no
 * rate limit: the least the HTTP edge of a queue-shaped gateway does.
 * argv: Redis URL, key prefix. Prints `{"url": ...}` once listening.
 */
const [redisUrl = '', prefix = ''] = process.argv.slice(2);
const relay = new FloorReplyRelay(redisUrl, prefix);

const server = createServer((req, res) => {
  readBody(req)
    .then((text) => relay.accept(JSON.parse(text) as Record<string, unknown>, res))
    .catch((err: unknown) => failed(res, err));
});
server.keepAliveTimeout = 30_000;

runChildEntry('queue floor api', async () => {
  await relay.start();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    ready: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await relay.close();
    },
  };
});
