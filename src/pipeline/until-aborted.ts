import { UpstreamError } from '../errors/upstream-error';

/**
 * `work`, or a rejection as soon as the plugin's time is up or the request is aborted. A plugin is
 * asked to honour its signal, but one that does not (a stuck socket, a query PostgreSQL cannot
 * cancel, a bug) must not hold the request, its worker slot or its backend slot past the timeout:
 * the runner stops waiting and lets the abandoned promise settle on its own.
 */
export function untilAborted<T>(
  work: Promise<T>,
  { timeout, request, provider }: { timeout: AbortSignal; request: AbortSignal; provider: string },
): Promise<T> {
  const failure = (): UpstreamError =>
    timeout.aborted && !request.aborted
      ? new UpstreamError({ kind: 'timeout', provider, message: `${provider} did not answer in time` })
      : new UpstreamError({ kind: 'aborted', provider, message: `${provider} was cancelled` });
  if (timeout.aborted || request.aborted) {
    work.catch(() => undefined);
    return Promise.reject(failure());
  }
  return new Promise<T>((resolve, reject) => {
    const stop = () => {
      timeout.removeEventListener('abort', onAbort);
      request.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      stop();
      reject(failure());
    };
    timeout.addEventListener('abort', onAbort, { once: true });
    request.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        stop();
        resolve(value);
      },
      (err: unknown) => {
        stop();
        reject(err);
      },
    );
  });
}
