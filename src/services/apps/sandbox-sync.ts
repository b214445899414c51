import type { SpaceVersions } from '../../cache/space-versions';
import type { Prisma } from '../../generated/prisma/client';
import type { SandboxSyncJob } from '../../queue/payloads';
import { appStore, type AppRow } from '../../store/apps';
import type { Db, Tx } from '../../store/db';
import { modelStore } from '../../store/models';
import { keepOwnSocialPost } from './social-post-settings';
import { keepOwnWebhook } from './webhook-settings';
import { readPolicies, readSettings, readWeights } from '../../schemas/stored-space-config';

/** `skipped`: the main Space is gone or is itself a sandbox, so there is nothing to copy. */
export type SyncOutcome = { result: 'created' | 'updated'; sandboxId: string } | { result: 'skipped' };

/** The configuration a sandbox copies from its main Space (its name, key and flags stay its own). */
function copiedFields(main: AppRow, requestedBy: string) {
  return {
    weights: readWeights(main.weights),
    policies: readPolicies(main.policies),
    settings: readSettings(main.settings),
    has_failover_chain: main.has_failover_chain,
    benchmark_model_id: main.benchmark_model_id,
    prompt_id: main.prompt_id,
    description: main.description,
    app_logo: main.app_logo,
    rate_limit: main.rate_limit,
    modified_by: requestedBy,
  };
}
/** What is written to the sandbox: the copied fields, settings as stored JSON. */
type CopiedFields = Omit<ReturnType<typeof copiedFields>, 'settings'> & { settings: Prisma.InputJsonObject };

/** The sandbox-sync job's work: make a main Space's sandbox an exact copy of it. */
export class SandboxSync {
  constructor(
    private readonly db: Db,
    private readonly versions: SpaceVersions,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Creates or refreshes the sandbox (fields, model states, failover chain) and marks the main
   * Space `up_to_date`, all in one transaction. Running it twice gives the same result.
   */
  async run(job: SandboxSyncJob): Promise<SyncOutcome> {
    const outcome = await this.copy(job);
    if (outcome.result !== 'skipped') await this.versions.bump([outcome.sandboxId]);
    return outcome;
  }

  private copy(job: SandboxSyncJob): Promise<SyncOutcome> {
    return this.db.$transaction(async (tx) => {
      // Main first, then the sandbox: the order every writer of the pair uses.
      await appStore.lock(tx, job.mainAppId);
      const main = await appStore.findById(tx, job.mainAppId);
      if (!main || main.sandbox_of) return { result: 'skipped' };
      const existing = await appStore.findSandboxOf(tx, main.id);
      const copied = copiedFields(main, job.requestedBy);
      // Social accounts and webhooks stay per Space: a sandbox never posts to its main Space's accounts or calls its webhook.
      const own = existing ? readSettings(existing.settings) : null;
      const fields: CopiedFields = { ...copied, settings: keepOwnWebhook(keepOwnSocialPost(copied.settings, own), own) as Prisma.InputJsonObject };
      const sandboxId = existing ? await this.refresh(tx, existing.id, fields) : await this.create(tx, main, fields);
      await modelStore.copyModelState(tx, main.id, sandboxId);
      await appStore.setSandboxStatus(tx, main.id, { status: 'up_to_date', syncedOn: this.clock() });
      return { result: existing ? 'updated' : 'created', sandboxId };
    });
  }

  /** Only a sync still in progress fails: a newer outcome recorded meanwhile stands. */
  async markFailed(mainAppId: string): Promise<void> {
    await appStore.setSandboxStatus(this.db, mainAppId, { status: 'failed', onlyFrom: 'syncing' });
  }

  private async refresh(tx: Tx, sandboxId: string, fields: CopiedFields): Promise<string> {
    await appStore.lock(tx, sandboxId);
    await appStore.update(tx, sandboxId, fields);
    return sandboxId;
  }

  private async create(tx: Tx, main: AppRow, fields: CopiedFields): Promise<string> {
    const sandbox = await appStore.createSandbox(tx, {
      ...fields,
      org_id: main.org_id,
      idp_id: fields.modified_by,
      name: `${main.name} (sandbox)`,
      sandbox_of: main.id,
    });
    return sandbox.id;
  }
}

/** What the processor needs of a BullMQ job. */
export interface SandboxSyncAttempt {
  data: SandboxSyncJob;
  /** Failed attempts before this one. */
  attemptsMade: number;
  opts: { attempts?: number };
}

/**
 * Runs one attempt. BullMQ retries a failed attempt (see the queue's `attempts`), so the status
 * stays `syncing` between attempts and becomes `failed` only when the last one fails.
 */
export async function processSandboxSync(sync: Pick<SandboxSync, 'run' | 'markFailed'>, job: SandboxSyncAttempt): Promise<SyncOutcome> {
  try {
    return await sync.run(job.data);
  } catch (err) {
    if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) await sync.markFailed(job.data.mainAppId);
    throw err;
  }
}
