import { keyPermissions } from '../../domain/permissions';
import type { ApiKeyView } from '../../schemas/keys';
import type { KeyListing } from '../../store/api-keys';

const seconds = (date: Date): number => Math.floor(date.getTime() / 1000);
const secondsOrNull = (date: Date | null): number | null => (date ? seconds(date) : null);

/** A key as the API shows it: never the secret, never its hash. */
export function presentKey(row: KeyListing): ApiKeyView {
  return {
    id: row.id,
    object: 'api_key',
    name: row.name,
    role: row.role,
    permissions: keyPermissions(row, row.user.is_service_owner),
    app_id: row.app_id,
    key_end: `sy-...${row.key_end}`,
    created_at: seconds(row.added_on),
    expires_at: secondsOrNull(row.expires_on),
    last_used_at: secondsOrNull(row.last_used_on),
    allowed_models: row.allowed_models.length > 0 ? row.allowed_models : null,
    revoked: row.revoked_on !== null,
    revoked_at: secondsOrNull(row.revoked_on),
    service_owner: row.user.is_service_owner,
  };
}
