import { useEffect, useState } from 'preact/hooks';
import type { SpaceDetailView } from '../../../src/schemas/apps';
import { api } from '../api';
import { ErrorNote } from '../components/status';
import { useAction } from '../use-action';

/** The API's limit on the chain's length (`setFailoverBody`). */
const MAX_CHAIN = 10;

interface ChainLink {
  id: string;
  model: string;
  provider: string;
}

const linkOf = ({ id, model, provider }: ChainLink): ChainLink => ({ id, model, provider });
const labelOf = (link: ChainLink) => `${link.model} (${link.provider})`;
const idsOf = (chain: ChainLink[]) => chain.map((link) => link.id).join();

/** `chain` with the link at `from` moved to `to`. */
function moved(chain: ChainLink[], from: number, to: number): ChainLink[] {
  const next = [...chain];
  const [link] = next.splice(from, 1);
  if (link) next.splice(to, 0, link);
  return next;
}

/**
 * The failover chain edited in the page (add one of the Space's active models, remove, move up or down),
 * then saved whole with `PUT /v1/apps/{app_id}/failover`.
 */
export function FailoverEditor({ detail, onSaved }: { detail: SpaceDetailView; onSaved(): void }) {
  const saved = detail.failover_models.map(linkOf);
  const [chain, setChain] = useState<ChainLink[]>(saved);
  const [choice, setChoice] = useState('');
  const { busy, error, run } = useAction();
  useEffect(() => setChain(saved), [idsOf(saved)]);

  // Only models on in the Space can be in the chain; the API checks again when it is saved.
  const candidates = [...detail.base_model_settings, ...detail.custom_model_settings]
    .filter((model) => model.active && !model.globally_disabled && !chain.some((link) => link.id === model.id))
    .map(linkOf);
  const chosen = candidates.find((model) => model.id === choice);
  const changed = idsOf(chain) !== idsOf(saved);

  function add() {
    if (!chosen) return;
    setChain([...chain, chosen]);
    setChoice('');
  }

  async function save() {
    await run(async () => {
      await api('PUT', `/v1/apps/${encodeURIComponent(detail.app.id)}/failover`, { body: { model_ids: chain.map((link) => link.id) } });
      onSaved();
    });
  }

  return (
    <article>
      <header>Failover chain</header>
      {!detail.app.has_failover_chain && <p>Not in use: the router picks the fallbacks (switch on "Use the failover chain" in the policies).</p>}
      {chain.length === 0 ? (
        <p>Empty.</p>
      ) : (
        <ol data-failover class="chain">
          {chain.map((link, index) => (
            <li key={link.id} data-model-id={link.id}>
              <span>
                {link.model} <small>({link.provider})</small>
              </span>
              <span class="actions">
                <button
                  type="button"
                  class="secondary outline"
                  aria-label={`Move ${labelOf(link)} up`}
                  disabled={index === 0}
                  onClick={() => setChain(moved(chain, index, index - 1))}
                >
                  ↑
                </button>
                <button
                  type="button"
                  class="secondary outline"
                  aria-label={`Move ${labelOf(link)} down`}
                  disabled={index === chain.length - 1}
                  onClick={() => setChain(moved(chain, index, index + 1))}
                >
                  ↓
                </button>
                <button
                  type="button"
                  class="secondary outline"
                  aria-label={`Remove ${labelOf(link)}`}
                  onClick={() => setChain(chain.filter((other) => other.id !== link.id))}
                >
                  ✕
                </button>
              </span>
            </li>
          ))}
        </ol>
      )}
      <div class="actions">
        <select
          name="failover_model"
          aria-label="Model to add to the chain"
          value={choice}
          onChange={(event) => setChoice(event.currentTarget.value)}
          disabled={chain.length >= MAX_CHAIN}
        >
          <option value="">{chain.length >= MAX_CHAIN ? `At most ${MAX_CHAIN} models` : 'Choose an active model…'}</option>
          {candidates.map((model) => (
            <option key={model.id} value={model.id}>
              {labelOf(model)}
            </option>
          ))}
        </select>
        <button type="button" class="secondary" onClick={add} disabled={!chosen || chain.length >= MAX_CHAIN}>
          Add to chain
        </button>
      </div>
      <ErrorNote error={error} />
      <div class="actions">
        <button type="button" data-save-chain onClick={save} aria-busy={busy} disabled={busy || !changed}>
          Save chain
        </button>
        {changed && (
          <button type="button" class="secondary outline" onClick={() => setChain(saved)} disabled={busy}>
            Undo changes
          </button>
        )}
      </div>
    </article>
  );
}
