import { useState } from 'preact/hooks';
import type { SpaceView } from '../../../src/schemas/apps';
import type { ApiKeyView, CreatedApiKeyView } from '../../../src/schemas/keys';
import { api, type ListPage } from '../api';
import { ErrorNote, LoadState } from '../components/status';
import { useAction } from '../use-action';
import { useApi } from '../use-api';
import { KeyForm } from './key-form';
import { KeySecret } from './key-secret';

/** A date short enough for a table cell (the full one in its tooltip). */
function When({ seconds, none }: { seconds: number | null; none: string }) {
  if (seconds === null) return <>{none}</>;
  const date = new Date(seconds * 1000);
  return <time title={date.toLocaleString()}>{date.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' })}</time>;
}

function KeyRow({
  apiKey,
  spaceName,
  onSecret,
  onChanged,
}: {
  apiKey: ApiKeyView;
  spaceName: string;
  onSecret(key: CreatedApiKeyView): void;
  onChanged(): void;
}) {
  const { busy, error, run } = useAction();
  const path = `/v1/keys/${encodeURIComponent(apiKey.id)}`;
  const rotate = () =>
    run(async () => {
      if (!window.confirm(`Rotate "${apiKey.name}"? Its current secret stops working at once.`)) return;
      onSecret(await api<CreatedApiKeyView>('POST', `${path}/rotate`));
      onChanged();
    });
  const revoke = () =>
    run(async () => {
      if (!window.confirm(`Revoke "${apiKey.name}"? It stops working at once; this cannot be undone.`)) return;
      await api('DELETE', path);
      onChanged();
    });
  return (
    <tr data-key-id={apiKey.id}>
      <td>{apiKey.name}</td>
      <td title={apiKey.permissions.join(', ')}>{apiKey.role}</td>
      <td>
        <code>{apiKey.key_end}</code>
      </td>
      <td>{spaceName}</td>
      <td>
        <When seconds={apiKey.created_at} none="—" />
      </td>
      <td>
        <When seconds={apiKey.expires_at} none="never" />
      </td>
      <td>
        <When seconds={apiKey.last_used_at} none="never" />
      </td>
      <td>{apiKey.allowed_models?.join(', ') ?? 'all'}</td>
      <td>
        {apiKey.revoked ? (
          <span class="badge bad">revoked</span>
        ) : (
          <div class="actions key-actions">
            <button type="button" class="secondary outline" onClick={rotate} aria-busy={busy} disabled={busy} aria-label={`Rotate ${apiKey.name}`}>
              Rotate
            </button>
            <button type="button" class="secondary" onClick={revoke} aria-busy={busy} disabled={busy} aria-label={`Revoke ${apiKey.name}`}>
              Revoke
            </button>
          </div>
        )}
        <ErrorNote error={error} />
      </td>
    </tr>
  );
}

/** The organization's keys (a Space key sees its Space's): create, rotate and revoke; a secret is shown once. */
export function KeysPage() {
  const [showRevoked, setShowRevoked] = useState(false);
  const [secret, setSecret] = useState<CreatedApiKeyView | null>(null);
  const keys = useApi(() => api<ListPage<ApiKeyView>>('GET', '/v1/keys', { query: { limit: 100, include_revoked: showRevoked } }), [showRevoked]);
  const spaces = useApi(() => api<ListPage<SpaceView>>('GET', '/v1/apps', { query: { limit: 100 } }), []);
  const spaceList = spaces.data?.data ?? [];
  const spaceName = (appId: string | null) => (appId === null ? 'organization-wide' : (spaceList.find((space) => space.id === appId)?.name ?? appId));
  return (
    <section>
      <h1>Keys</h1>
      {secret && <KeySecret name={secret.name} secret={secret.key} onDone={() => setSecret(null)} />}
      <KeyForm
        spaces={spaceList}
        onCreated={(created) => {
          setSecret(created);
          keys.reload();
        }}
      />
      <label>
        <input type="checkbox" role="switch" name="include_revoked" checked={showRevoked} onChange={(event) => setShowRevoked(event.currentTarget.checked)} />
        Show revoked keys
      </label>
      <LoadState state={keys} />
      {keys.data && (
        <div class="overflow-auto">
          <table class="keys-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Role</th>
                <th>Key</th>
                <th>Space</th>
                <th>Created</th>
                <th>Expires</th>
                <th>Last used</th>
                <th>Models</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {keys.data.data.map((apiKey) => (
                <KeyRow key={apiKey.id} apiKey={apiKey} spaceName={spaceName(apiKey.app_id)} onSecret={setSecret} onChanged={keys.reload} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
