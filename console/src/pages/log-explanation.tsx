import { requestedModelOf, routingScoresOf } from '../explanation';
import { usd } from '../format';

interface ExplanationProps {
  /** The log's response, where the router's scores are. */
  response: unknown;
  /** The request as the log keeps it: its `model` says whether the request named one. */
  request: unknown;
  /** The model that answered, if any. */
  answeredBy: string | null;
}

/**
 * Candidates the router scored, best first, and why: quality, cost and latency under the Space's weights.
 * A request that named its model was not routed: the page says so, and a ranking made for its failover
 * marks the named model alone.
 */
export function Explanation({ response, request, answeredBy }: ExplanationProps) {
  const scores = routingScoresOf(response);
  const candidates = scores?.candidates ?? [];
  const requested = requestedModelOf(request);
  const named = requested !== null && (requested === answeredBy || candidates.some((candidate) => candidate.model === requested)) ? requested : null;
  if (named !== null && candidates.length === 0) {
    return (
      <p data-named-model={named}>
        The request named its model, <strong>{named}</strong>: the router did not choose it, and no ranking was made.
      </p>
    );
  }
  if (!scores || candidates.length === 0) return <p>No routing explanation was recorded for this request.</p>;
  const marked = named !== null ? new Set([named]) : new Set(scores.best_models);
  return (
    <div data-explanation>
      {named !== null && (
        <p data-named-model={named}>
          The request named its model, <strong>{named}</strong>: the router did not choose it. The ranking below ordered the other models to fail over to.
        </p>
      )}
      <p>
        Router {scores.router.version || '—'} · prompt kind <strong>{scores.router.kind || '—'}</strong>
        {scores.router.smart_learn && ' · learning from ratings'}
        {scores.router.explored && ' · explored a lower-scored model'}
      </p>
      <div class="overflow-auto">
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
            {candidates.map((candidate) => (
              <tr key={`${candidate.provider}/${candidate.model}`} data-candidate={candidate.model}>
                <td>
                  {marked.has(candidate.model) ? <strong>{candidate.model}</strong> : candidate.model} <small>({candidate.provider})</small>
                  {named === candidate.model && (
                    <>
                      {' '}
                      <span class="badge">named</span>
                    </>
                  )}
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
    </div>
  );
}
