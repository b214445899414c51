import type { LogView } from '../../../src/schemas/logs';
import { api } from '../api';
import { ErrorNote } from '../components/status';
import { useAction } from '../use-action';

export function RatingBadge({ rating }: { rating: boolean | null }) {
  if (rating === null) return <span class="badge">unrated</span>;
  return <span class={`badge ${rating ? 'good' : 'bad'}`}>{rating ? 'good' : 'bad'}</span>;
}

/** Rates the answer with `PUT /v1/logs/{log_id}/rating`; the API's answer replaces the shown log. */
export function RateAnswer({ log, onRated }: { log: LogView; onRated(log: LogView): void }) {
  const { busy, error, run } = useAction();
  async function rate(good_answer: boolean | null) {
    await run(async () => {
      onRated(await api<LogView>('PUT', `/v1/logs/${encodeURIComponent(log.id)}/rating`, { body: { good_answer } }));
    });
  }
  return (
    <div>
      <p>
        Rating: <RatingBadge rating={log.good_answer} />
      </p>
      <div class="actions" role="group" aria-label="Rate the answer">
        <button type="button" disabled={busy} onClick={() => rate(true)}>
          Good answer
        </button>
        <button type="button" class="secondary" disabled={busy} onClick={() => rate(false)}>
          Bad answer
        </button>
        {log.good_answer !== null && (
          <button type="button" class="outline secondary" disabled={busy} onClick={() => rate(null)}>
            Clear rating
          </button>
        )}
      </div>
      <ErrorNote error={error} />
    </div>
  );
}
