import { useState } from 'preact/hooks';
import type { LogView } from '../../../src/schemas/logs';
import { api, type ListPage } from '../api';
import { SpaceSelect, useSpaces } from '../components/space-select';
import { LoadState } from '../components/status';
import { dateTime, usd } from '../format';
import { href } from '../route';
import { useApi } from '../use-api';
import { RatingBadge } from './log-rating';

export interface LogFilters {
  app_id: string;
  model: string;
  status: '' | 'succeeded' | 'failed';
  /** `YYYY-MM-DD`, from the date inputs; the end day is included. */
  from: string;
  to: string;
  good_answer: '' | 'true' | 'false';
}

const NO_FILTERS: LogFilters = { app_id: '', model: '', status: '', from: '', to: '', good_answer: '' };
const PAGE_SIZE = 25;

/** The day after `YYYY-MM-DD`: the API's `created_before` is exclusive, the form's "to" day is not. */
function dayAfter(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
}

function listQuery(filters: LogFilters, after: string | null) {
  return {
    limit: PAGE_SIZE,
    after,
    app_id: filters.app_id,
    model: filters.model.trim(),
    status: filters.status,
    created_after: filters.from,
    created_before: filters.to ? dayAfter(filters.to) : '',
    good_answer: filters.good_answer,
  };
}

function FilterForm({ onApply }: { onApply(filters: LogFilters): void }) {
  const [draft, setDraft] = useState<LogFilters>(NO_FILTERS);
  const spaces = useSpaces();
  const set = (field: keyof LogFilters) => (event: { currentTarget: { value: string } }) => setDraft({ ...draft, [field]: event.currentTarget.value });
  return (
    <form
      class="filters"
      aria-label="Log filters"
      onSubmit={(event) => {
        event.preventDefault();
        onApply(draft);
      }}
    >
      <SpaceSelect value={draft.app_id} onChange={(app_id) => setDraft({ ...draft, app_id })} spaces={spaces.data?.data ?? []} />
      <label>
        Model
        <input name="model" value={draft.model} onInput={set('model')} placeholder="gpt-4o-mini" />
      </label>
      <label>
        Status
        <select name="status" value={draft.status} onChange={set('status')}>
          <option value="">Any</option>
          <option value="succeeded">Succeeded</option>
          <option value="failed">Failed</option>
        </select>
      </label>
      <label>
        From
        <input type="date" name="from" value={draft.from} onInput={set('from')} />
      </label>
      <label>
        To
        <input type="date" name="to" value={draft.to} onInput={set('to')} />
      </label>
      <label>
        Rating
        <select name="good_answer" value={draft.good_answer} onChange={set('good_answer')}>
          <option value="">Any</option>
          <option value="true">Good</option>
          <option value="false">Bad</option>
        </select>
      </label>
      <button type="submit">Filter</button>
    </form>
  );
}

/** Logs explorer: filters by Space, model, status, date range and rating; newest first, a page at a time. */
export function LogsPage() {
  const [filters, setFilters] = useState<LogFilters>(NO_FILTERS);
  const [cursor, setCursor] = useState<string | null>(null);
  const page = useApi(() => api<ListPage<LogView>>('GET', '/v1/logs', { query: listQuery(filters, cursor) }), [filters, cursor]);
  return (
    <section>
      <h1>Logs</h1>
      <FilterForm
        onApply={(next) => {
          setCursor(null);
          setFilters(next);
        }}
      />
      <LoadState state={page} />
      {page.data && (
        <>
          <div class="overflow-auto">
            <table data-logs>
              <thead>
                <tr>
                  <th>Time</th>
                  <th>Model</th>
                  <th>Status</th>
                  <th>Prompt</th>
                  <th class="number">Tokens</th>
                  <th class="number">Cost</th>
                  <th>Rating</th>
                </tr>
              </thead>
              <tbody>
                {page.data.data.map((log) => (
                  <tr key={log.id} data-log-id={log.id}>
                    <td>
                      <a href={href('logs', log.id)}>{dateTime(log.added_on)}</a>
                    </td>
                    <td>{log.model?.model ?? log.namespace ?? '—'}</td>
                    <td>{log.status_code}</td>
                    <td>{(log.prompt ?? '').slice(0, 80)}</td>
                    <td class="number">{log.total_tokens}</td>
                    <td class="number">{usd(log.total_tokens_cost)}</td>
                    <td>
                      <RatingBadge rating={log.good_answer} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {page.data.data.length === 0 && <p>No logs match.</p>}
          <div class="actions">
            {cursor && (
              <button type="button" class="secondary" onClick={() => setCursor(null)}>
                Newest
              </button>
            )}
            {page.data.has_more && (
              <button type="button" class="secondary" onClick={() => setCursor(page.data?.last_id ?? null)}>
                Older
              </button>
            )}
          </div>
        </>
      )}
    </section>
  );
}
