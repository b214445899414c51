import { randomBytes, randomUUID } from 'node:crypto';
import type { SocialPostConfig } from '../../src/config/plugins/social-post';
import type { SocialPostSettingsPatch } from '../../src/schemas/plugin-settings';
import { SecretBox } from '../../src/secrets/secret-box';
import { mergeSocialPostSettings, writeSocialPostSecrets } from '../../src/services/apps/social-post-settings';
import { bootstrapTenant } from '../../src/services/tenancy/bootstrap';
import { createDb, type Db } from '../../src/store/db';
import type { PluginContext } from '../../src/plugins/types';
import { uniqueSuffix } from '../helpers/test-database';

/** A Space in the run's database with a social account stored as PUT /v1/apps/update stores it. */
export interface SocialSpace {
  db: Db;
  appId: string;
  orgId: string;
  config: SocialPostConfig;
  box: SecretBox;
  /** The Space's parsed `settings.plugins["social-post"]`, as the runner hands it to the plugin. */
  settings: unknown;
}

export async function socialSpace(patch: SocialPostSettingsPatch): Promise<SocialSpace> {
  const db = createDb(process.env.DATABASE_URL ?? '', 2);
  const tenant = await bootstrapTenant(db, { org: `social-${uniqueSuffix()}`, space: 'main' });
  const config: SocialPostConfig = { timeoutMs: 2_000 };
  const box = new SecretBox({ current: randomBytes(32), previous: [] });
  const settings = mergeSocialPostSettings(undefined, patch);
  await db.$transaction(async (tx) => {
    await tx.app.update({ where: { id: tenant.app_id }, data: { settings: { plugins: { 'social-post': settings } } } });
    await writeSocialPostSecrets(tx, { appId: tenant.app_id, patch, box });
  });
  return { db, appId: tenant.app_id, orgId: tenant.org_id, config, box, settings };
}

/** A context naming the Space; a new request id unless one is given. */
export function spaceContext(space: SocialSpace, requestId: string = randomUUID()): Partial<PluginContext> {
  return { requestId, space: { id: space.appId, orgId: space.orgId, dataSpaceId: space.appId } };
}
