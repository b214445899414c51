import { can, type AuthContext } from '../../auth/auth-context';
import type { SpaceView } from '../../schemas/apps';
import type { AppRow } from '../../store/apps';
import { presentPrompt } from '../prompts/present-prompt';
import { presentModel } from './present-model';
import { readPolicies, readSettings, readWeights } from '../../schemas/stored-space-config';

/** A Space as `viewer` may see it: the key hash only for keys that manage keys. */
export function presentSpace(row: AppRow, viewer: AuthContext): SpaceView {
  return {
    id: row.id,
    org_id: row.org_id,
    idp_id: row.idp_id,
    modified_by: row.modified_by,
    prompt_id: row.prompt_id,
    hashed_key: can(viewer, 'keys:manage') ? row.hashed_key : null,
    key_end: row.key_end,
    name: row.name,
    description: row.description,
    app_logo: row.app_logo,
    is_active: row.is_active,
    rate_limit: row.rate_limit,
    has_failover_chain: row.has_failover_chain,
    weights: readWeights(row.weights),
    policies: readPolicies(row.policies),
    settings: readSettings(row.settings),
    sandbox_of: row.sandbox_of,
    use_parent_custom_data: row.use_parent_custom_data,
    benchmark_model_id: row.benchmark_model_id,
    benchmark_model: row.benchmark_model ? presentModel(row.benchmark_model) : null,
    prompt: row.prompt ? presentPrompt(row.prompt) : null,
    sandbox_status: row.sandbox_status,
    sandbox_synced_on: row.sandbox_synced_on ? row.sandbox_synced_on.toISOString() : null,
    added_on: row.added_on.toISOString(),
    modified_on: row.modified_on.toISOString(),
  };
}
