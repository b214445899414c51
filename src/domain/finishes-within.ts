/**
 * Resolves with true once `work` fulfils, or with false after `ms` (the work goes on); rejects if the
 * work rejects first. The timer is cleared either way. The one race-with-timeout of the service.
 */
export function finishesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  // One promise and one reaction: it runs once per completion (the log's commit), where a race of a
  // timeout promise and the work, with a `finally`, made five.
  return new Promise<boolean>((resolve, reject) => {
    const timer = setTimeout(() => resolve(false), ms);
    work.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
