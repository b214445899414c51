import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

/** An app listening on a free loopback port, for tests that call it with a real client (an SDK, fetch). */
export interface ListeningApp {
  server: Server;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Drops kept-alive client connections and stops listening. */
  close(): Promise<void>;
}

export async function listenOnLoopback(app: Express): Promise<ListeningApp> {
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    server,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
