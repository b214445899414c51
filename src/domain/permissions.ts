/** What a key may do. Listed on Spaces in `current_user_permissions`. */
export const PERMISSIONS = [
  'apps:read',
  'apps:create',
  'apps:update',
  'models:read',
  'models:update',
  'completions:create',
  'prompts:read',
  'prompts:write',
  'prompts:publish',
  'prompts:review',
  'prompts:create_public',
  'assistants:read',
  'assistants:write',
  'conversations:read',
  'conversations:write',
  'logs:read',
  'logs:rate',
  'keys:manage',
  'queues:admin',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** A key's role: one of the ROLES, or `custom` when its own list of permissions is what it may do. */
export const KEY_ROLES = [...ROLES, 'custom'] as const;
export type KeyRole = (typeof KEY_ROLES)[number];

export function isPermission(name: string): name is Permission {
  return (PERMISSIONS as readonly string[]).includes(name);
}

const VIEWER: readonly Permission[] = ['apps:read', 'models:read', 'prompts:read', 'assistants:read', 'conversations:read', 'logs:read'];
const MEMBER: readonly Permission[] = [...VIEWER, 'completions:create', 'prompts:write', 'assistants:write', 'conversations:write', 'logs:rate'];
const ADMIN: readonly Permission[] = [...MEMBER, 'apps:create', 'apps:update', 'models:update', 'prompts:publish'];
const OWNER: readonly Permission[] = [...ADMIN, 'keys:manage'];

const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = { owner: OWNER, admin: ADMIN, member: MEMBER, viewer: VIEWER };

/** Granted on top of the role to users of the organization that runs the service. */
const SERVICE_OWNER_EXTRA: readonly Permission[] = ['prompts:review', 'prompts:create_public', 'queues:admin'];

export function permissionsFor(role: Role, isServiceOwner: boolean): Permission[] {
  const granted = new Set<Permission>(ROLE_PERMISSIONS[role]);
  if (isServiceOwner) SERVICE_OWNER_EXTRA.forEach((p) => granted.add(p));
  return PERMISSIONS.filter((p) => granted.has(p));
}

/** What a key may do: its role's permissions (with the service owner's extras), or for `custom` exactly its own list. */
export function keyPermissions(key: { role: KeyRole; permissions: readonly string[] }, isServiceOwner: boolean): Permission[] {
  if (key.role !== 'custom') return permissionsFor(key.role, isServiceOwner);
  return PERMISSIONS.filter((p) => key.permissions.includes(p));
}
