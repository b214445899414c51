import { useEffect } from 'preact/hooks';
import type { SpaceDetailView, SpacePairView } from '../../../src/schemas/apps';
import { api } from '../api';
import { ErrorNote, LoadState } from '../components/status';
import { dateTime } from '../format';
import { href } from '../route';
import { useApi } from '../use-api';
import { FailoverEditor } from './space-failover';
import { ModelToggles } from './space-models';
import { PoliciesForm } from './space-policies';
import { WeightsForm } from './space-weights';
import { useAction } from '../use-action';

/** How often the page re-reads a Space while its sandbox is syncing, in ms. */
const SYNC_POLL_MS = 2000;

function Sandbox({ detail, onSynced }: { detail: SpaceDetailView; onSynced(): void }) {
  const { busy, error, run } = useAction();
  const { app } = detail;
  const syncing = app.sandbox_status === 'syncing';
  useEffect(() => {
    if (!syncing) return undefined;
    const timer = setInterval(onSynced, SYNC_POLL_MS);
    return () => clearInterval(timer);
  }, [syncing]);
  if (app.sandbox_of) {
    return (
      <p>
        This is the sandbox of <a href={href('spaces', app.sandbox_of)}>its main Space</a>.
      </p>
    );
  }
  async function sync() {
    await run(async () => {
      await api<SpacePairView>('POST', `/v1/apps/${encodeURIComponent(app.id)}/sandbox`);
      onSynced();
    });
  }
  return (
    <article>
      <header>Sandbox</header>
      <p>
        Status: <strong data-sandbox-status={app.sandbox_status}>{app.sandbox_status.replace(/_/g, ' ')}</strong>
        {app.sandbox_synced_on && <> · last synced {dateTime(app.sandbox_synced_on)}</>}
      </p>
      <ErrorNote error={error} />
      <button type="button" onClick={sync} aria-busy={busy || syncing} disabled={busy || syncing}>
        {app.sandbox_status === 'none' ? 'Create sandbox' : 'Sync sandbox'}
      </button>
    </article>
  );
}

/** A Space: weights and policies (edited), models on and off, the failover chain (edited), sandbox and its sync. */
export function SpaceDetailPage({ appId }: { appId: string }) {
  const detail = useApi(() => api<SpaceDetailView>('GET', `/v1/apps/${encodeURIComponent(appId)}`), [appId]);
  const data = detail.data;
  return (
    <section>
      <p>
        <a href={href('spaces')}>← Spaces</a>
      </p>
      <LoadState state={detail} />
      {data && (
        <>
          <h1>{data.app.name}</h1>
          <p>{data.app.description}</p>
          <div class="grid">
            <WeightsForm space={data.app} onSaved={detail.reload} />
            <PoliciesForm space={data.app} onSaved={detail.reload} />
          </div>
          <Sandbox detail={data} onSynced={detail.reload} />
          <FailoverEditor detail={data} onSaved={detail.reload} />
          <ModelToggles appId={data.app.id} models={[...data.base_model_settings, ...data.custom_model_settings]} onChanged={detail.reload} />
        </>
      )}
    </section>
  );
}
