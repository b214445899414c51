import type { Deployment } from './deployment';
import { FLOOR_PATHS } from './floors';
import type { LoadTarget } from './load';
import { portkeyHeaders } from './portkey';
import type { QueueFloor } from './queue-floor/start';
import type { Mode, Path } from './report';

/** The one prompt every path is sent. */
export const PROMPT = 'Say hello to the benchmark.';

/** Where each path of a run listens: the upstream, Switchyard's deployments, the peer, the floors. */
export interface Endpoints {
  upstream: string;
  apiKey: string;
  model: string;
  /** What Switchyard's requests send as `model` (none under --routing auto: the Space's routing chooses). */
  requestModel: string | undefined;
  deployments: Deployment[];
  peer: string | null;
  floors: QueueFloor[];
}

/** The request the load generator sends to one path in one mode. */
export function targetFor(pathKind: Path, mode: Mode, endpoints: Endpoints): LoadTarget {
  const messages = [{ role: 'user', content: PROMPT }];
  const streamed = mode === 'stream' ? { stream: true } : {};
  const body = { model: endpoints.model, messages, ...streamed };
  const routedBody = { ...(endpoints.requestModel ? { model: endpoints.requestModel } : {}), messages, ...streamed };
  const floor = endpoints.floors.find((f) => FLOOR_PATHS[f.kind] === pathKind);
  // The configured floor is sent what Switchyard is sent: the bench's key, and no model under automatic routing.
  if (floor?.kind === 'configured')
    return { url: `${floor.url}/v1/chat/completions`, headers: { authorization: `Bearer ${endpoints.apiKey}` }, body: routedBody, stream: mode === 'stream' };
  if (floor) return { url: `${floor.url}/v1/chat/completions`, headers: {}, body, stream: mode === 'stream' };
  if (pathKind === 'portkey' && endpoints.peer)
    return { url: `${endpoints.peer}/v1/chat/completions`, headers: portkeyHeaders(`${endpoints.upstream}/openai/v1`), body, stream: mode === 'stream' };
  const deployment = endpoints.deployments.find((d) => d.path === pathKind);
  return deployment
    ? { url: `${deployment.apiUrl}/v1/chat/completions`, headers: { authorization: `Bearer ${endpoints.apiKey}` }, body: routedBody, stream: mode === 'stream' }
    : { url: `${endpoints.upstream}/openai/v1/chat/completions`, headers: { authorization: 'Bearer bench' }, body, stream: mode === 'stream' };
}
