import type { Response } from 'express';
import type { ClientDeparture } from '../intake/completion-gateway';

/** Tells one listener when the client goes away before the response is complete, without an AbortController (the completion APIs' edge). */
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

/** The same moment as an AbortSignal (the embeddings API's edge, whose upstream call takes a signal). */
export function clientGone(res: Response): AbortSignal {
  const controller = new AbortController();
  departureOf(res).onGone(() => controller.abort());
  return controller.signal;
}
