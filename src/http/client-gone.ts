import type { Response } from 'express';

/** Aborts when the client goes away before the response is complete (every completion API's edge). */
export function clientGone(res: Response): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
