/**
 * Resolves with true once `work` fulfils, or with false after `ms` (the work goes on); rejects if the
 * work rejects first. The timer is cleared either way. The one race-with-timeout of the service.
 */
export function finishesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([work.then(() => true), timeout]).finally(() => clearTimeout(timer));
}
