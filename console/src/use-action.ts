import { useState } from 'preact/hooks';
import { describeError } from './use-api';

/** What a form or button does: busy while it runs, and its failure (the API's refusal, naming the field) as a message. */
export interface Action {
  busy: boolean;
  error: string | null;
  run(work: () => Promise<void>): Promise<void>;
}

export function useAction(): Action {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}
