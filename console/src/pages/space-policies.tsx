import { useEffect, useRef, useState } from 'preact/hooks';
import type { PoliciesPatch, SpaceDetailView } from '../../../src/schemas/apps';
import { api } from '../api';
import { ErrorNote } from '../components/status';
import { useAction } from '../use-action';

type Space = SpaceDetailView['app'];

/** The form's fields; `max_cost` is the input's text so that empty can mean "no limit". */
interface PoliciesDraft {
  privacy_level: number;
  max_cost: string;
  max_switch_model_retries: number;
  max_same_model_retries: number;
  has_failover_chain: boolean;
  /** Requests per minute as typed; empty means no limit. */
  rate_limit: string;
}

const PRIVACY_LEVELS = [
  { level: 1, label: '1 · everything logged' },
  { level: 2, label: '2 · request and response masked' },
  { level: 3, label: '3 · nothing stored' },
] as const;

function draftOf(space: Space): PoliciesDraft {
  const { policies } = space;
  return {
    privacy_level: policies.privacy_level,
    max_cost: policies.max_cost === null ? '' : String(policies.max_cost),
    max_switch_model_retries: policies.max_switch_model_retries,
    max_same_model_retries: policies.max_same_model_retries,
    has_failover_chain: space.has_failover_chain,
    rate_limit: space.rate_limit === 0 ? '' : String(space.rate_limit),
  };
}

/**
 * The draft after the stored values moved from `before` to `after` (a save of ours, a sandbox poll):
 * a field the user has not touched follows the store, one they are editing keeps their value.
 */
function rebase(draft: PoliciesDraft, before: PoliciesDraft, after: PoliciesDraft): PoliciesDraft {
  const next = { ...draft };
  for (const key of Object.keys(after) as (keyof PoliciesDraft)[]) {
    if (draft[key] === before[key]) Object.assign(next, { [key]: after[key] });
  }
  return next;
}

const maxCostOf = (text: string): number | null => (text.trim() === '' ? null : Number(text));
/** Empty or 0: no limit (sent as null, which `PUT /v1/apps/update` takes to clear it). */
const rateLimitOf = (text: string): number | null => (text.trim() === '' || Number(text) === 0 ? null : Number(text));

/**
 * The fields the user changed, in the shape `PUT /v1/apps/update` accepts; the API judges the values.
 * Unchanged fields stay out so that saving a retry count does not re-apply the privacy level (which
 * withholds kept answers) or overwrite what someone else saved meanwhile.
 */
function updateBody(id: string, stored: PoliciesDraft, draft: PoliciesDraft) {
  const policies: PoliciesPatch = {};
  if (draft.privacy_level !== stored.privacy_level) policies.privacy_level = draft.privacy_level;
  if (maxCostOf(draft.max_cost) !== maxCostOf(stored.max_cost)) policies.max_cost = maxCostOf(draft.max_cost);
  if (draft.max_switch_model_retries !== stored.max_switch_model_retries) policies.max_switch_model_retries = draft.max_switch_model_retries;
  if (draft.max_same_model_retries !== stored.max_same_model_retries) policies.max_same_model_retries = draft.max_same_model_retries;
  return {
    id,
    ...(Object.keys(policies).length > 0 && { policies }),
    ...(draft.has_failover_chain !== stored.has_failover_chain && { has_failover_chain: draft.has_failover_chain }),
    ...(rateLimitOf(draft.rate_limit) !== rateLimitOf(stored.rate_limit) && { rate_limit: rateLimitOf(draft.rate_limit) }),
  };
}

/** The Space's policies and its failover switch, saved with `PUT /v1/apps/update` as the weights are. */
export function PoliciesForm({ space, onSaved }: { space: Space; onSaved(): void }) {
  const [draft, setDraft] = useState<PoliciesDraft>(() => draftOf(space));
  const { busy, error, run } = useAction();
  const stored = draftOf(space);
  const previous = useRef(stored);
  // What the last save sent, until the Space is read again: a second save before that read sends only its own change.
  const justSaved = useRef<PoliciesDraft | null>(null);
  useEffect(() => {
    const before = previous.current;
    previous.current = stored;
    justSaved.current = null;
    setDraft((draft) => rebase(draft, before, stored));
  }, [JSON.stringify(stored)]);

  async function save(event: Event) {
    event.preventDefault();
    await run(async () => {
      const sent = draft;
      await api('PUT', '/v1/apps/update', { body: updateBody(space.id, justSaved.current ?? stored, sent) });
      justSaved.current = sent;
      onSaved();
    });
  }

  const retries = (name: 'max_switch_model_retries' | 'max_same_model_retries', label: string) => (
    <label>
      {label}
      <input
        type="number"
        name={name}
        min={0}
        max={10}
        step={1}
        required
        value={draft[name]}
        onInput={(event) => setDraft({ ...draft, [name]: Number(event.currentTarget.value) })}
      />
    </label>
  );

  return (
    <article>
      <header>Policies</header>
      <form onSubmit={save} aria-label="Policies">
        <label>
          Privacy level
          <select
            name="privacy_level"
            value={draft.privacy_level}
            onChange={(event) => setDraft({ ...draft, privacy_level: Number(event.currentTarget.value) })}
          >
            {PRIVACY_LEVELS.map(({ level, label }) => (
              <option key={level} value={level}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Max cost per request (USD)
          <input
            type="number"
            name="max_cost"
            min={0}
            step="any"
            placeholder="no limit"
            value={draft.max_cost}
            onInput={(event) => setDraft({ ...draft, max_cost: event.currentTarget.value })}
          />
        </label>
        <div class="grid">
          {retries('max_switch_model_retries', 'Retries, other model')}
          {retries('max_same_model_retries', 'Retries, same model')}
        </div>
        <label>
          <input
            type="checkbox"
            role="switch"
            name="has_failover_chain"
            checked={draft.has_failover_chain}
            onChange={(event) => setDraft({ ...draft, has_failover_chain: event.currentTarget.checked })}
          />
          Use the failover chain
        </label>
        <label>
          Rate limit (requests per minute)
          <input
            type="number"
            name="rate_limit"
            min={0}
            step={1}
            placeholder="no limit"
            value={draft.rate_limit}
            onInput={(event) => setDraft({ ...draft, rate_limit: event.currentTarget.value })}
          />
        </label>
        <ErrorNote error={error} />
        <button type="submit" aria-busy={busy} disabled={busy}>
          Save policies
        </button>
      </form>
    </article>
  );
}
