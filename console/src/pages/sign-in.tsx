import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorNote } from '../components/status';
import { session } from '../session';
import { useAction } from '../use-action';

/** Checks the key against the API before keeping it for this tab. */
export function SignIn({ onSignedIn }: { onSignedIn(): void }) {
  const [key, setKey] = useState('');
  const { busy, error, run } = useAction();

  async function submit(event: Event) {
    event.preventDefault();
    await run(async () => {
      await api('GET', '/v1/apps', { query: { limit: 1 }, key: key.trim() });
      session.signIn(key.trim());
      setKey('');
      onSignedIn();
    });
  }

  return (
    <main class="container sign-in">
      <article>
        <header>
          <h1>Switchyard console</h1>
        </header>
        <form onSubmit={submit}>
          <label>
            API key
            <input
              type="password"
              name="api_key"
              autocomplete="off"
              required
              value={key}
              onInput={(event) => setKey(event.currentTarget.value)}
              placeholder="sy-…"
            />
            <small>Kept in this tab only (sessionStorage) and sent as a Bearer header to this server.</small>
          </label>
          <ErrorNote error={error} />
          <button type="submit" aria-busy={busy} disabled={busy}>
            Sign in
          </button>
        </form>
      </article>
    </main>
  );
}
