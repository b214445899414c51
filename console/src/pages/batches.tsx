import { useEffect } from 'preact/hooks';
import type { BatchView } from '../../../src/schemas/batches';
import { api, type ListPage } from '../api';
import { LoadState } from '../components/status';
import { epochSeconds } from '../format';
import { useApi } from '../use-api';

/** How often the list is re-read while a batch is still running, in ms. */
const REFRESH_MS = 5000;
const RUNNING = new Set(['validating', 'in_progress', 'finalizing', 'cancelling']);

function Progress({ counts }: { counts: BatchView['request_counts'] }) {
  const done = counts.completed + counts.failed;
  return (
    <>
      <progress value={done} max={Math.max(counts.total, 1)} aria-label="Requests done" />
      <small>
        {counts.completed} completed · {counts.failed} failed · {counts.total} total
      </small>
    </>
  );
}

/** The organization's batches (`/v1/batches`) with their progress, refreshed while any runs. */
export function BatchesPage() {
  const batches = useApi(() => api<ListPage<BatchView>>('GET', '/v1/batches', { query: { limit: 100 } }), []);
  const running = batches.data?.data.some((batch) => RUNNING.has(batch.status)) ?? false;
  useEffect(() => {
    if (!running) return undefined;
    const timer = setInterval(batches.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [running]);
  return (
    <section>
      <h1>Batches</h1>
      <LoadState state={batches} />
      {batches.data?.data.length === 0 && <p>No batches yet.</p>}
      {batches.data && batches.data.data.length > 0 && (
        <div class="overflow-auto">
          <table data-batches>
            <thead>
              <tr>
                <th>Batch</th>
                <th>Endpoint</th>
                <th>Status</th>
                <th>Progress</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {batches.data.data.map((batch) => (
                <tr key={batch.id} data-batch={batch.id}>
                  <td>
                    <code>{batch.id}</code>
                    {batch.metadata?.description && (
                      <div>
                        <small>{batch.metadata.description}</small>
                      </div>
                    )}
                  </td>
                  <td>{batch.endpoint}</td>
                  <td>{batch.status}</td>
                  <td>
                    <Progress counts={batch.request_counts} />
                  </td>
                  <td>{epochSeconds(batch.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
