import type { Response } from 'express';
import type { ClientDeparture } from '../intake/completion-gateway';

/** Aborts when the client goes away before the response is complete (the embeddings API's edge, whose upstream call takes a signal). */
export function clientGone(res: Response): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** The same moment as `clientGone`'s abort, told to one listener, without an AbortController (the completion APIs' edge). */
export function departureOf(res: Response): ClientDeparture {
  return {
    onGone(listener) {
      const onClose = () => {
        if (!res.writableFinished) listener();
      };
      res.once('close', onClose);
      return () => res.off('close', onClose);
    },
  };
}
