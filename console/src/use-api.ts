import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiFailure } from './api';

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload(): void;
}

/** Loads once per change of `deps`; a later load's answer wins over an earlier one's. */
export function useApi<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: string | null; loading: boolean }>({ data: null, error: null, loading: true });
  const [generation, setGeneration] = useState(0);
  const run = useCallback(load, deps);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    run().then(
      (data) => current && setState({ data, error: null, loading: false }),
      (err: unknown) => current && setState({ data: null, error: describeError(err), loading: false }),
    );
    return () => {
      current = false;
    };
  }, [run, generation]);
  return { ...state, reload: () => setGeneration((value) => value + 1) };
}

export function describeError(err: unknown): string {
  if (err instanceof ApiFailure) return err.param ? `${err.message} (${err.param})` : err.message;
  return err instanceof Error ? err.message : String(err);
}
