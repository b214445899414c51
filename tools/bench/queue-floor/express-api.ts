import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { runChildEntry } from '../child-entry';
import { floorHttpMetrics, floorKeyCheck, validated } from './configured-edge';
import { failed, FloorReplyRelay } from './reply-relay';

/**
 * The Express floor's API process: the queue floor with its HTTP edge on Express 5, `express.json()` and
 * one route, the least a service of the required shape and stack does at its edge. The queue side is
 * the queue floor's (reply-relay.ts), and so is its worker.
 * argv: Redis URL, key prefix, and `admit` for the required-work floor (each request admitted first: the
 * Space's stamp and the rate limit, reply-relay.ts), or `configure` and the SHA-256 of the one API key for
 * the configured floor (admitted too; the key checked, the request validated and the HTTP metrics kept:
 * configured-edge.ts). Prints `{"url": ...}` once listening.
 */
const [redisUrl = '', prefix = '', admission = '', keyHash = ''] = process.argv.slice(2);
const configured = admission === 'configure';
const relay = new FloorReplyRelay(redisUrl, prefix, admission === 'admit' || configured);

const app = express();
if (configured) app.use(floorHttpMetrics(), floorKeyCheck(keyHash));
app.use(express.json());
app.post('/v1/chat/completions', (req, res) => {
  const body = configured
    ? validated(req.body, (param, message) => void res.status(400).json({ error: { message: `${param}: ${message}`, type: 'invalid_request_error', param } }))
    : (req.body as Record<string, unknown>);
  if (body === null) return;
  relay.accept(body, res).catch((err: unknown) => failed(res, err));
});

runChildEntry('express floor api', async () => {
  await relay.start();
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  server.keepAliveTimeout = 30_000;
  return {
    ready: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await relay.close();
    },
  };
});
