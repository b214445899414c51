import { routingScoresOf } from '../explanation';
import { usd } from '../format';

/** Candidates the router scored, best first, and why: quality, cost and latency under the Space's weights. */
export function Explanation({ response }: { response: unknown }) {
  const scores = routingScoresOf(response);
  if (!scores) return <p>No routing explanation was recorded for this request.</p>;
  const best = new Set(scores.best_models);
  return (
    <div data-explanation>
      <p>
        Router {scores.router.version || '—'} · prompt kind <strong>{scores.router.kind || '—'}</strong>
        {scores.router.smart_learn && ' · learning from ratings'}
        {scores.router.explored && ' · explored a lower-scored model'}
      </p>
      <table>
        <thead>
          <tr>
            <th>Candidate</th>
            <th class="number">Score</th>
            <th class="number">Quality</th>
            <th class="number">Offline quality</th>
            <th class="number">Est. cost</th>
            <th class="number">Est. latency</th>
          </tr>
        </thead>
        <tbody>
          {scores.candidates.map((candidate) => (
            <tr key={`${candidate.provider}/${candidate.model}`} data-candidate={candidate.model}>
              <td>
                {best.has(candidate.model) ? <strong>{candidate.model}</strong> : candidate.model} <small>({candidate.provider})</small>
              </td>
              <td class="number">{candidate.score.toFixed(4)}</td>
              <td class="number">{candidate.quality?.toFixed(4) ?? '—'}</td>
              <td class="number">{candidate.offline_quality?.toFixed(4) ?? '—'}</td>
              <td class="number">{typeof candidate.cost === 'number' ? usd(candidate.cost) : '—'}</td>
              <td class="number">{typeof candidate.latency === 'number' ? `${Math.round(candidate.latency)} ms` : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
