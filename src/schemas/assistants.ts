import { z } from 'zod';
import { dateTime, int4, pageQuery, uuid } from './common';
import { PLUGIN_IDS } from '../domain/plugin-output';

export const VISIBILITIES = ['public', 'organization', 'private'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export { PLUGIN_IDS };

const visibility = z.enum(VISIBILITIES);

/**
 * What a chat-completion request made with this assistant starts from. The contract leaves these
 * fields open; they mirror the completion request so the pipeline can merge them in. Strict, so a
 * typo fails loudly instead of being silently ignored.
 */
export const assistantConfigSchema = z
  .strictObject({
    instructions: z.string().max(100_000).optional().describe('System message put before the conversation.'),
    model: z.string().min(1).max(200).optional().describe("A model name of the catalog, or the service's own name for automatic selection."),
    temperature: z.number().min(0).max(2).optional(),
    max_tokens: int4.positive().optional(),
    top_p: z.number().min(0).max(1).optional(),
    plugins: z
      .array(z.enum(PLUGIN_IDS))
      .refine((ids) => new Set(ids).size === ids.length, 'plugin ids must be unique')
      .optional()
      .describe('Plugins invoked for every request made with this assistant.'),
    prompt_id: uuid.optional().describe("A prompt of the caller's organization or an approved public prompt."),
    response_format: z.strictObject({ type: z.enum(['text', 'json_object']) }).optional(),
  })
  .meta({ id: 'AssistantConfig' });
export type AssistantConfig = z.output<typeof assistantConfigSchema>;

const assistantFields = {
  name: z.string().min(1).max(100),
  avatar: z.string().max(2048).nullable(),
  description: z.string().max(1000).nullable(),
  visibility: visibility.describe("Who sees the assistant: 'private' only its creator; 'organization' and 'public' every key of the organization."),
  definition_visibility: visibility.describe(
    "Who sees `assistant_config`: 'private' only its creator; 'organization' and 'public' every key of the organization.",
  ),
  assistant_config: assistantConfigSchema.nullable(),
};

export const createAssistantBody = z
  .strictObject({
    name: assistantFields.name,
    avatar: assistantFields.avatar.optional(),
    description: assistantFields.description.optional(),
    visibility: assistantFields.visibility.default('private'),
    definition_visibility: assistantFields.definition_visibility.default('private'),
    assistant_config: assistantFields.assistant_config.optional(),
  })
  .meta({ id: 'AssistantCreate' });
export type CreateAssistantInput = z.output<typeof createAssistantBody>;

export const updateAssistantBody = z
  .strictObject({
    name: assistantFields.name.optional(),
    avatar: assistantFields.avatar.optional(),
    description: assistantFields.description.optional(),
    visibility: assistantFields.visibility.optional(),
    definition_visibility: assistantFields.definition_visibility.optional(),
    assistant_config: assistantFields.assistant_config.optional().describe('A different configuration becomes a new version.'),
  })
  .meta({ id: 'AssistantUpdate' });
export type UpdateAssistantInput = z.output<typeof updateAssistantBody>;

export const assistantListQuery = pageQuery;

export const assistantSchema = z
  .object({
    id: uuid,
    app_id: uuid,
    slug: z.string().describe('Derived from the name at creation, unique in the Space; renaming keeps it.'),
    name: z.string(),
    avatar: z.string().nullable(),
    description: z.string().nullable(),
    visibility,
    definition_visibility: visibility,
    version_id: uuid.describe('Id of the current version (extension of the contract).'),
    added_on: dateTime.describe('Extension of the contract.'),
  })
  .meta({ id: 'Assistant' });
export type AssistantView = z.input<typeof assistantSchema>;

export const assistantDetailSchema = assistantSchema
  .extend({
    version: z.number().int().describe('Number of the current version, from 1.'),
    assistant_config: assistantConfigSchema
      .nullable()
      .optional()
      .describe('Configuration of the current version; absent when the caller may not see the definition (see `definition_visibility`).'),
  })
  .meta({ id: 'AssistantDetail' });
export type AssistantDetailView = z.input<typeof assistantDetailSchema>;
