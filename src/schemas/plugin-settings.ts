import { z } from 'zod';
import { PLUGIN_IDS } from './assistants';

/**
 * Per-Space plugin settings, stored in a Space's `settings.plugins` and `settings.auto_tools`. Every
 * field has a default, so a Space that never set one still has complete settings. Request shapes
 * (patches) have every key optional and are merged key by key into what is stored.
 */

const httpsUrl = z.url({ protocol: /^https?$/ }).max(2048);

export const webSearchSettings = z.object({
  max_results: z.number().int().min(1).max(10).default(5).describe('Results injected into the conversation (at most 10).'),
  fetch_pages: z.number().int().min(0).max(5).default(0).describe('How many of the top results are fetched and reduced to readable text (0: snippets only).'),
  language: z.string().max(16).nullable().default(null).describe('Preferred result language (e.g. `en`), passed to backends that take one.'),
});

export const spaceSearchSettings = z.object({
  max_results: z.number().int().min(1).max(20).default(5).describe('Chunks injected into the conversation.'),
});

export const imageGenerationSettings = z.object({
  model: z.string().min(1).max(200).default('gpt-image-1').describe("The Images backend's model."),
  size: z
    .string()
    .regex(/^(auto|\d{2,5}x\d{2,5})$/)
    .default('1024x1024'),
  n: z.number().int().min(1).max(4).default(1),
  response_format: z.enum(['url', 'b64_json']).default('b64_json'),
});

export const transcribeAudioSettings = z.object({
  model: z.string().min(1).max(200).default('whisper-1').describe("The transcription backend's model."),
  language: z.string().max(16).nullable().default(null),
});

/** Credentials are write-only: stored encrypted, and shown back only as `has_access_token` / `has_app_password`. */
export const mastodonAccountPatch = z.strictObject({
  instance_url: httpsUrl.describe("The account's instance, e.g. https://mastodon.social"),
  access_token: z.string().min(1).max(4096).describe('Write-only: an access token with the `write:statuses` scope.'),
  visibility: z.enum(['public', 'unlisted', 'private', 'direct']).default('public'),
});
export const blueskyAccountPatch = z.strictObject({
  service_url: httpsUrl.default('https://bsky.social'),
  identifier: z.string().min(1).max(256).describe('Handle or DID.'),
  app_password: z.string().min(1).max(256).describe('Write-only: an app password.'),
});

export const socialPostSettingsPatch = z.strictObject({
  network: z.enum(['mastodon', 'bluesky']).optional().describe('Where posts go; absent: the one account configured.'),
  allow_auto_tools: z.boolean().optional().describe('Whether `auto_tools` may post without the request naming `social-post`.'),
  mastodon: mastodonAccountPatch.nullable().optional().describe('null removes the account.'),
  bluesky: blueskyAccountPatch.nullable().optional().describe('null removes the account.'),
});
export type SocialPostSettingsPatch = z.infer<typeof socialPostSettingsPatch>;

export const SOCIAL_NETWORKS = ['mastodon', 'bluesky'] as const;
export type SocialNetwork = (typeof SOCIAL_NETWORKS)[number];

/**
 * `settings.plugins["social-post"]` as stored and as every GET shows it: the accounts without their
 * secrets, which live sealed in `space_secrets` and show only as `has_access_token`/`has_app_password`.
 */
export const socialPostSettings = z
  .object({
    network: z.enum(SOCIAL_NETWORKS).nullable().default(null).describe('Where posts go; null: the one account configured.'),
    allow_auto_tools: z.boolean().default(false).describe('Whether `auto_tools` may post without the request naming `social-post`.'),
    mastodon: z
      .object({
        instance_url: z.string(),
        visibility: z.enum(['public', 'unlisted', 'private', 'direct']),
        has_access_token: z.boolean().describe('Whether an access token is stored (it is never shown).'),
      })
      .nullable()
      .default(null),
    bluesky: z
      .object({
        service_url: z.string(),
        identifier: z.string(),
        has_app_password: z.boolean().describe('Whether an app password is stored (it is never shown).'),
      })
      .nullable()
      .default(null),
  })
  .meta({ id: 'SocialPostSettings' });
export type SocialPostSettings = z.infer<typeof socialPostSettings>;

export const AUTO_TOOLS_MODES = ['auto', 'tool_loop', 'preselect'] as const;
export const autoToolsSettings = z.object({
  mode: z
    .enum(AUTO_TOOLS_MODES)
    .default('auto')
    .describe(
      '`tool_loop`: plugins offered to the model as tools; `preselect`: a classifier picks them before the call; `auto`: the tool loop for models with functions, else pre-selection.',
    ),
  plugins: z
    .array(z.enum(PLUGIN_IDS))
    .default(['web-search', 'space-search', 'image-generation-generic', 'transcribe-audio'])
    .describe('Plugins `auto_tools` may use (`social-post` also needs `allow_auto_tools`).'),
  max_steps: z.number().int().min(1).max(8).default(4).describe('Model calls one request may make in the tool loop.'),
});
export type AutoToolsSettings = z.infer<typeof autoToolsSettings>;

/** The request shape of a settings object: every key optional, no defaults (what is absent keeps its stored value), unknown keys refused. */
function patchOf<Shape extends z.ZodRawShape>(schema: z.ZodObject<Shape>) {
  const shape = Object.fromEntries(
    Object.entries(schema.shape).map(([key, field]) => [key, ((field instanceof z.ZodDefault ? field.unwrap() : field) as z.ZodType).optional()]),
  );
  return z.strictObject(shape) as unknown as z.ZodObject<{ [K in keyof Shape]: z.ZodOptional<z.ZodType<z.output<Shape[K]>>> }>;
}

/** The plugins without credentials: their settings are sent, stored and shown in the same (patch) shape. */
const plainPluginSettings = {
  'web-search': patchOf(webSearchSettings).optional(),
  'space-search': patchOf(spaceSearchSettings).optional(),
  'image-generation-generic': patchOf(imageGenerationSettings).optional(),
  'transcribe-audio': patchOf(transcribeAudioSettings).optional(),
};

export const pluginSettingsPatch = z
  .strictObject({ ...plainPluginSettings, 'social-post': socialPostSettingsPatch.optional() })
  .describe(
    'Extra field: per-Space plugin settings, merged plugin by plugin and key by key into the stored ones. Secrets (`access_token`, `app_password`) are write-only.',
  )
  .meta({ id: 'PluginSettingsPatch' });
export type PluginSettingsPatch = z.infer<typeof pluginSettingsPatch>;

export const autoToolsPatch = patchOf(autoToolsSettings)
  .describe('Extra field: how `auto_tools` works in this Space, merged key by key into the stored settings.')
  .meta({ id: 'AutoToolsPatch' });
export type AutoToolsPatch = z.infer<typeof autoToolsPatch>;

/** What is stored and shown: each plugin's settings as patched (absent keys take the plugin's defaults when it runs); secrets never shown. */
export const pluginSettingsView = z
  .object({ ...plainPluginSettings, 'social-post': socialPostSettings.optional() })
  .catchall(z.record(z.string(), z.unknown()))
  .describe('Extra field: per-Space plugin settings, present once set. Secrets are never shown: only whether one is stored.');
export type PluginSettingsView = z.infer<typeof pluginSettingsView>;
