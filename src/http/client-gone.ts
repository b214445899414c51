import type { Response } from 'express';
import type { ClientDeparture } from '../intake/completion-gateway';

/**
 * Tells one listener when the client goes away before the response is complete, without an AbortController
 * (the completion APIs' edge). A small object per response with its method on the prototype, where an object
 * literal made a closure too for every request. `on` rather than `once`: node emits a response's 'close' once
 * (emitCloseNT checks `_closed`), and `once` wraps every listener in two more objects.
 */
class ResponseDeparture implements ClientDeparture {
  constructor(private readonly res: Response) {}

  onGone(listener: () => void): () => void {
    const { res } = this;
    const onClose = () => {
      if (!res.writableFinished) listener();
    };
    res.on('close', onClose);
    return () => res.off('close', onClose);
  }
}

export function departureOf(res: Response): ClientDeparture {
  return new ResponseDeparture(res);
}

/** The same moment as an AbortSignal (the embeddings API's edge, whose upstream call takes a signal). */
export function clientGone(res: Response): AbortSignal {
  const controller = new AbortController();
  departureOf(res).onGone(() => controller.abort());
  return controller.signal;
}
