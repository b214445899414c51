import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The request and response objects the API's server makes, with the properties Express, its router,
 * body-parser and our middleware set on every request declared at construction.
 *
 * Express gives each request and response its app's prototype (`Object.setPrototypeOf`), and each property
 * such an object gains afterwards was measured at about 1.4 KB allocated (a bare Express app, three
 * properties more or less on each request: 4.1 KB; V8 seems to copy the object's map and descriptors for
 * each). Set at construction, each of them is only written later: the API allocated 19 KB less per chat
 * completion (87.9 → 68.9 KB, compiled, one API process). Their values are what reading them before they
 * are set gave (undefined, or the prototype's value), so nothing that reads them sees a difference. Not the
 * getters of Express's request (`query`, `path`, `ip`, ...): an own property would hide them.
 */
export class ServedRequest extends IncomingMessage {
  constructor(socket: Socket) {
    super(socket);
    const fields = this as unknown as Record<string, unknown>;
    // Express's (app.handle) and its router's.
    fields.res = undefined;
    fields.next = undefined;
    fields.baseUrl = undefined;
    fields.originalUrl = undefined;
    fields.route = undefined;
    fields.params = undefined;
    // parseurl's cache, body-parser's result.
    fields._parsedUrl = undefined;
    fields.body = undefined;
    // EventEmitter's count, on the prototype (0) until the first listener.
    fields._eventsCount = 0;
    // Ours: the request logger's, authentication's, the error dialect's (request-context.ts).
    fields.id = undefined;
    fields.log = undefined;
    fields.auth = undefined;
    fields.errorDialect = undefined;
  }
}

/** The response's counterpart: Express's `locals`, and the status that node keeps on the prototype until it is set. */
export class ServedResponse extends ServerResponse<ServedRequest> {
  constructor(req: ServedRequest) {
    super(req);
    const fields = this as unknown as Record<string, unknown>;
    fields.locals = undefined;
    fields.statusCode = 200;
    fields.statusMessage = undefined;
  }
}

/** The options `createServer` takes to make them. */
export const SERVED_MESSAGES = { IncomingMessage: ServedRequest, ServerResponse: ServedResponse };
