import { z } from 'zod';
import { KEY_ROLES, PERMISSIONS, ROLES } from '../domain/permissions';
import { pageQuery, uuid } from './common';

/** How far ahead an expiry may lie, in seconds: ten years. */
export const MAX_KEY_LIFETIME_SECONDS = 10 * 365 * 24 * 3600;
/** Most entries of a key's `allowed_models`. */
const MAX_ALLOWED_MODELS = 100;

const unixSeconds = z.number().int().min(0);
/** 9999-12-31T23:59:59Z: the last second PostgreSQL's timestamp (as stored) can hold. */
const LAST_STORABLE_SECOND = 253_402_300_799;
const modelName = z.string().min(1).max(200);

const ROLE_DESCRIPTION =
  "The key's role: `owner`, `admin`, `member` or `viewer` (see Roles and permissions), or `custom` for a key created with its own `permissions`.";

export const apiKeySchema = z
  .object({
    id: uuid,
    object: z.literal('api_key'),
    name: z.string(),
    role: z.enum(KEY_ROLES).describe(ROLE_DESCRIPTION),
    permissions: z
      .array(z.enum(PERMISSIONS))
      .describe("What the key may do: its role's permissions (a service owner's extras included), or a `custom` key's own list."),
    app_id: uuid.nullable().describe('The Space the key acts on; null for an organization-wide key.'),
    key_end: z
      .string()
      .describe('The redacted key, `sy-...` and its last four characters. The secret itself is shown once, when the key is created or rotated.'),
    created_at: unixSeconds,
    expires_at: unixSeconds.nullable().describe('When the key stops authenticating (401 from then on); null: never.'),
    last_used_at: unixSeconds
      .nullable()
      .describe('When the key last authenticated, recorded at most once a minute per key (never a write per request); null: never used.'),
    allowed_models: z
      .array(z.string())
      .nullable()
      .describe('Models the key may call (names as `GET /v1/models` lists them, or `provider/namespace`); null: every model of its Space.'),
    revoked: z.boolean(),
    revoked_at: unixSeconds.nullable(),
    service_owner: z
      .boolean()
      .describe("Whether the key's user belongs to the organization that runs the service (adds `queues:admin`, `prompts:review`, `prompts:create_public`)."),
  })
  .meta({ id: 'ApiKey' });
export type ApiKeyView = z.input<typeof apiKeySchema>;

export const createdApiKeySchema = apiKeySchema
  .extend({ key: z.string().describe('The secret: shown in this response only; only its SHA-256 hash is stored.') })
  .meta({ id: 'ApiKeyWithSecret' });
export type CreatedApiKeyView = z.input<typeof createdApiKeySchema>;

export const createKeyBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    role: z.enum(ROLES).optional().describe('Default `member`. Not together with `permissions`.'),
    permissions: z
      .array(z.enum(PERMISSIONS))
      .min(1)
      .optional()
      .describe('A custom set instead of a role: the key may do exactly these (its role reads `custom`). Not together with `role`.'),
    app_id: uuid
      .nullable()
      .optional()
      .describe("The Space the key acts on; null for an organization-wide key. Absent: the caller's own Space (null for an organization-wide caller)."),
    expires_at: unixSeconds
      .max(LAST_STORABLE_SECOND)
      .optional()
      .describe('When the key stops authenticating (unix seconds, in the future). Not together with `expires_in`.'),
    expires_in: z
      .number()
      .int()
      .min(1)
      .max(MAX_KEY_LIFETIME_SECONDS)
      .optional()
      .describe('Seconds from now until the key stops authenticating. Not together with `expires_at`.'),
    allowed_models: z
      .array(modelName)
      .min(1)
      .max(MAX_ALLOWED_MODELS)
      .optional()
      .describe("Models the key may call; absent: every model of its Space (or the caller's own list, if its key has one)."),
  })
  .superRefine((body, ctx) => {
    if (body.role !== undefined && body.permissions !== undefined)
      ctx.addIssue({ code: 'custom', message: "send either 'role' or 'permissions', not both", path: ['permissions'] });
    if (body.expires_at !== undefined && body.expires_in !== undefined)
      ctx.addIssue({ code: 'custom', message: "send either 'expires_at' or 'expires_in', not both", path: ['expires_in'] });
  })
  .meta({ id: 'ApiKeyCreate' });
export type CreateKeyBody = z.infer<typeof createKeyBody>;

export const keyListQuery = pageQuery.extend({
  app_id: uuid.optional().describe('Only the keys acting on this Space.'),
  include_revoked: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .describe('Also list revoked keys (default false).'),
});
export type KeyListQuery = z.infer<typeof keyListQuery>;

export const keyParams = z.object({ key_id: uuid });

export const deletedKeySchema = z.object({ id: uuid, object: z.literal('api_key'), deleted: z.literal(true) }).meta({ id: 'ApiKeyDeleted' });
export type DeletedKeyView = z.input<typeof deletedKeySchema>;
