import type { Loaded } from '../use-api';

/** What a section shows while it loads or after it failed; null once its data is there. */
export function LoadState<T>({ state }: { state: Loaded<T> }) {
  if (state.error)
    return (
      <p class="error" role="alert">
        {state.error}
      </p>
    );
  if (state.loading && state.data === null) return <p aria-busy="true">Loading…</p>;
  return null;
}

export function ErrorNote({ error }: { error: string | null }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}
