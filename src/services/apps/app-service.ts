import type { Prisma } from '../../generated/prisma/client';
import type { AuthContext } from '../../auth/auth-context';
import type { AsyncJobStore } from '../../async-jobs/job-store';
import type { SpaceVersions } from '../../cache/space-versions';
import type { IdempotencyStore } from '../../intake/idempotency-store';
import { ApiError } from '../../errors/api-error';
import type { SandboxSyncJob } from '../../queue/payloads';
import type { SecretBox } from '../../secrets/secret-box';
import type { ModelAvailability } from '../models/model-availability';
import type { CreateAppBody, SpaceDetailView, SpacePairView, SpaceView, UpdateAppBody } from '../../schemas/apps';
import type { Page, PageQuery } from '../../schemas/common';
import { createAppWithDefaults } from '../../store/app-creation';
import { appStore } from '../../store/apps';
import { inTransaction, type Db } from '../../store/db';
import { toPage } from '../../store/pagination';
import { presentSpace } from './present-space';
import { findVisibleApp, lockVisibleApp } from './space-access';
import { DEFAULT_POLICIES, DEFAULT_SETTINGS, DEFAULT_WEIGHTS } from '../../schemas/stored-space-config';
import { mergeConfig } from './space-config';
import { loadSpaceDetail, loadSpacePair, type SpaceReader } from './space-detail';
import { checkReferences } from './space-references';
import { writeSocialPostSecrets } from './social-post-settings';
import { writeWebhookSecret } from './webhook-settings';
import { referencesOf, updateSpace } from './space-update';

/** Puts a sandbox-sync job on the queue. */
export type EnqueueSandboxSync = (job: SandboxSyncJob) => Promise<void>;

export interface AppServiceDeps {
  db: Db;
  versions: SpaceVersions;
  /** The answers kept for `Idempotency-Key` repeats, dropped when a Space's privacy level reaches 2 or 3. */
  keptAnswers: Pick<IdempotencyStore, 'withholdSpace'>;
  /** The answers async jobs keep for GET /v1/jobs/{id}, dropped when a Space's privacy level reaches 3. */
  asyncResults: Pick<AsyncJobStore, 'withholdSpace'>;
  enqueueSandboxSync: EnqueueSandboxSync;
  /** Seals plugin credentials set through `settings.plugins`; null when the service has no PLUGIN_SECRETS_KEY. */
  secrets: SecretBox | null;
  /** Whether each model of a Space can answer now, for the Space's model lists. */
  availability: ModelAvailability;
}

/** A webhook secret the service generated is shown once: in the response of the request that made it. */
function withShownSecret(detail: SpaceDetailView, secret: string | null): SpaceDetailView {
  const webhook = detail.app.settings.webhook;
  if (secret === null || !webhook) return detail;
  return { ...detail, app: { ...detail.app, settings: { ...detail.app.settings, webhook: { ...webhook, secret } } } };
}

/** Spaces: create, read, update, and ask for a sandbox copy. */
export class AppService {
  private readonly db: Db;

  constructor(private readonly deps: AppServiceDeps) {
    this.db = deps.db;
  }

  private readerOf(auth: AuthContext): SpaceReader {
    return { auth, availability: this.deps.availability };
  }

  /** A new main Space with the catalog's default-active models switched on. */
  async create(auth: AuthContext, body: CreateAppBody): Promise<SpaceDetailView> {
    return inTransaction(this.db, async (tx) => {
      const config = mergeConfig({ weights: DEFAULT_WEIGHTS, policies: DEFAULT_POLICIES, settings: DEFAULT_SETTINGS }, body);
      // The Space does not exist yet, so it has no assistants and no Space-level custom models.
      await checkReferences(tx, { orgId: auth.orgId, appIds: [] }, referencesOf(body, config));
      const created = await createAppWithDefaults(tx, {
        orgId: auth.orgId,
        idpId: auth.idpId,
        name: body.name,
        description: body.description,
        appLogo: body.app_logo,
        rateLimit: body.rate_limit,
        extra: { ...config, settings: config.settings as Prisma.InputJsonObject, prompt_id: config.policies.prompt_id },
      });
      await writeSocialPostSecrets(tx, { appId: created.id, patch: body.settings?.plugins?.['social-post'], box: this.deps.secrets });
      const secret = await writeWebhookSecret(tx, { appId: created.id, patch: body.settings?.webhook, box: this.deps.secrets });
      return withShownSecret(await loadSpaceDetail(tx, this.readerOf(auth), await findVisibleApp(tx, auth, { id: created.id, param: 'id' })), secret);
    });
  }

  async list(auth: AuthContext, query: PageQuery): Promise<Page<SpaceView>> {
    return toPage(await appStore.listMain(this.db, auth.orgId, query), query, (row) => presentSpace(row, auth));
  }

  async get(auth: AuthContext, appId: string): Promise<SpaceDetailView> {
    return loadSpaceDetail(this.db, this.readerOf(auth), await findVisibleApp(this.db, auth, { id: appId, param: 'app_id' }));
  }

  /** One transaction: a rejected update changes nothing. The next request after the answer uses the new configuration. */
  async update(auth: AuthContext, body: UpdateAppBody): Promise<SpacePairView> {
    const pair = await inTransaction(this.db, async (tx) => {
      const mainId = await updateSpace(tx, auth, body);
      // After updateSpace: it found the Space in the caller's organization (else 404) and holds its lock.
      await writeSocialPostSecrets(tx, { appId: body.id, patch: body.settings?.plugins?.['social-post'], box: this.deps.secrets });
      const secret = await writeWebhookSecret(tx, { appId: body.id, patch: body.settings?.webhook, box: this.deps.secrets });
      const pair = await loadSpacePair(tx, this.readerOf(auth), mainId);
      if (pair.main.app.id === body.id) pair.main = withShownSecret(pair.main, secret);
      else if (pair.sandbox) pair.sandbox = withShownSecret(pair.sandbox, secret);
      return pair;
    });
    await this.deps.versions.bump([body.id]);
    // Privacy applies at once: no answer of the Space stays kept in Redis for a repeat (and the update
    // found the Space in the caller's organization, so that is its scope).
    if ((body.policies?.privacy_level ?? 1) >= 2) await this.deps.keptAnswers.withholdSpace({ orgId: auth.orgId, appId: body.id });
    // At level 3 nothing of an answer rests in Redis, async results included (their status stays).
    if ((body.policies?.privacy_level ?? 1) >= 3) await this.deps.asyncResults.withholdSpace(body.id);
    return pair;
  }

  /**
   * Marks the main Space `syncing` and queues the copy. The job is queued inside the transaction
   * that holds the main Space's lock: if queueing fails nothing changes, and a worker that picks the
   * job up at once waits for the lock, so it never sees the status from before `syncing`.
   */
  async requestSandbox(auth: AuthContext, appId: string): Promise<SpacePairView> {
    return inTransaction(this.db, async (tx) => {
      const app = await lockVisibleApp(tx, auth, { id: appId, param: 'app_id' });
      if (app.sandbox_of) {
        throw new ApiError('invalid_request', `Space '${app.id}' is itself a sandbox; ask for the sandbox of its main Space '${app.sandbox_of}'.`, 'app_id');
      }
      await appStore.setSandboxStatus(tx, app.id, { status: 'syncing' });
      const pair = await loadSpacePair(tx, this.readerOf(auth), app.id);
      await this.deps.enqueueSandboxSync({ mainAppId: app.id, requestedBy: auth.idpId });
      return pair;
    });
  }
}
