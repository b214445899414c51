import { useEffect, useState } from 'preact/hooks';
import type { SpaceDetailView, Weights } from '../../../src/schemas/apps';
import { api } from '../api';
import { ErrorNote } from '../components/status';
import { useAction } from '../use-action';

const NAMES = ['cost', 'latency', 'quality'] as const;

/** The router's weights, each 0 to 1, saved with `PUT /v1/apps/update` (the API checks they are not all zero). */
export function WeightsForm({ space, onSaved }: { space: SpaceDetailView['app']; onSaved(): void }) {
  const [draft, setDraft] = useState<Weights>(space.weights);
  const { busy, error, run } = useAction();
  useEffect(() => setDraft(space.weights), [space.weights.cost, space.weights.latency, space.weights.quality]);

  async function save(event: Event) {
    event.preventDefault();
    await run(async () => {
      await api('PUT', '/v1/apps/update', { body: { id: space.id, weights: draft } });
      onSaved();
    });
  }

  return (
    <article>
      <header>Router weights</header>
      <form onSubmit={save} aria-label="Router weights">
        <div class="grid">
          {NAMES.map((name) => (
            <label key={name}>
              {name[0]?.toUpperCase()}
              {name.slice(1)}
              <input
                type="number"
                name={name}
                min={0}
                max={1}
                step="any"
                required
                value={draft[name]}
                onInput={(event) => setDraft({ ...draft, [name]: Number(event.currentTarget.value) })}
              />
            </label>
          ))}
        </div>
        <ErrorNote error={error} />
        <button type="submit" aria-busy={busy} disabled={busy}>
          Save weights
        </button>
      </form>
    </article>
  );
}
