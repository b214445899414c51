import { useState } from 'preact/hooks';
import type { SpaceView } from '../../../src/schemas/apps';
import type { CreatedApiKeyView, CreateKeyBody } from '../../../src/schemas/keys';
import { PERMISSIONS, ROLES, type Permission, type Role } from '../../../src/domain/permissions';
import { api } from '../api';
import { ErrorNote } from '../components/status';
import { useAction } from '../use-action';

/** Where the key acts: as the API decides when `app_id` is absent (the signed-in key's own scope), organization-wide, or one Space. */
const DEFAULT_SCOPE = '';
const ORG_WIDE = 'org';

interface Draft {
  name: string;
  access: Role | 'custom';
  permissions: Permission[];
  scope: string;
  expiresInDays: string;
  allowedModels: string;
}

const EMPTY: Draft = { name: '', access: 'member', permissions: [], scope: DEFAULT_SCOPE, expiresInDays: '', allowedModels: '' };

/** The draft as `POST /v1/keys` takes it; the API judges the values (and refuses more than the caller's key can do). */
function bodyOf(draft: Draft): CreateKeyBody {
  const models = draft.allowedModels
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const days = draft.expiresInDays.trim();
  return {
    name: draft.name,
    ...(draft.access === 'custom' ? { permissions: draft.permissions } : { role: draft.access }),
    ...(draft.scope === ORG_WIDE ? { app_id: null } : draft.scope ? { app_id: draft.scope } : {}),
    ...(days ? { expires_in: Math.round(Number(days) * 86_400) } : {}),
    ...(models.length > 0 ? { allowed_models: models } : {}),
  };
}

/** Creates a key: role or custom permissions, Space, expiry and allowed models. The secret goes to `onCreated`, once. */
export function KeyForm({ spaces, onCreated }: { spaces: SpaceView[]; onCreated(key: CreatedApiKeyView): void }) {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const { busy, error, run } = useAction();
  const set = (change: Partial<Draft>) => setDraft({ ...draft, ...change });

  async function create(event: Event) {
    event.preventDefault();
    await run(async () => {
      const created = await api<CreatedApiKeyView>('POST', '/v1/keys', { body: bodyOf(draft) });
      setDraft(EMPTY);
      onCreated(created);
    });
  }

  const toggle = (permission: Permission, on: boolean) =>
    set({ permissions: on ? [...draft.permissions, permission] : draft.permissions.filter((p) => p !== permission) });

  return (
    <article>
      <header>New key</header>
      <form onSubmit={create} aria-label="New key">
        <div class="grid">
          <label>
            Name
            <input name="name" required maxLength={100} value={draft.name} onInput={(event) => set({ name: event.currentTarget.value })} />
          </label>
          <label>
            Role
            <select name="role" value={draft.access} onChange={(event) => set({ access: event.currentTarget.value as Draft['access'] })}>
              {ROLES.map((role) => (
                <option key={role} value={role}>
                  {role}
                </option>
              ))}
              <option value="custom">custom permissions…</option>
            </select>
          </label>
        </div>
        {draft.access === 'custom' && (
          <fieldset class="permission-grid">
            <legend>Permissions</legend>
            {PERMISSIONS.map((permission) => (
              <label key={permission}>
                <input
                  type="checkbox"
                  name="permissions"
                  value={permission}
                  checked={draft.permissions.includes(permission)}
                  onChange={(event) => toggle(permission, event.currentTarget.checked)}
                />
                {permission}
              </label>
            ))}
          </fieldset>
        )}
        <div class="grid">
          <label>
            Space
            <select name="app_id" value={draft.scope} onChange={(event) => set({ scope: event.currentTarget.value })}>
              <option value={DEFAULT_SCOPE}>same as my key</option>
              <option value={ORG_WIDE}>organization-wide</option>
              {spaces.map((space) => (
                <option key={space.id} value={space.id}>
                  {space.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Expires in (days)
            <input
              type="number"
              name="expires_in_days"
              min={0.01}
              step="any"
              placeholder="never"
              value={draft.expiresInDays}
              onInput={(event) => set({ expiresInDays: event.currentTarget.value })}
            />
          </label>
        </div>
        <label>
          Allowed models
          <input
            name="allowed_models"
            placeholder="all; or names, comma-separated"
            value={draft.allowedModels}
            onInput={(event) => set({ allowedModels: event.currentTarget.value })}
          />
        </label>
        <ErrorNote error={error} />
        <button type="submit" aria-busy={busy} disabled={busy}>
          Create key
        </button>
      </form>
    </article>
  );
}
