import { z } from 'zod';
import { dateTime, pageQuery, uuid } from './common';

export const PROMPT_STATUSES = ['draft', 'pending', 'approved', 'declined'] as const;
export type PromptStatus = (typeof PROMPT_STATUSES)[number];

const promptText = z.string().min(1).max(100_000);
const title = z.string().min(1).max(60);
const description = z.string().min(1).max(200);

export const createPromptBody = z.strictObject({ prompt: promptText, title, description }).meta({ id: 'PromptCreate' });
export const updatePromptBody = z.strictObject({ id: uuid, prompt: promptText, title, description }).meta({ id: 'PromptUpdate' });
export const declinePromptBody = z.strictObject({ decline_reason: z.string().min(1).max(1000) }).meta({ id: 'PromptDecline' });

export const promptListQuery = pageQuery.extend({
  status: z.enum(PROMPT_STATUSES).optional().describe('Only prompts in this review state.'),
  scope: z
    .enum(['organization', 'public', 'review'])
    .default('organization')
    .describe(
      "'organization': your organization's prompts; 'public': approved prompts of every organization; 'review': every organization's prompts (service owners only).",
    ),
});

export const promptSchema = z
  .object({
    id: uuid,
    org_id: uuid.nullable(),
    prompt: z.string(),
    title: z.string(),
    description: z.string(),
    tokens: z.number().int().describe('Tokens of `prompt` under the o200k_base encoding.'),
    is_public: z.boolean(),
    status: z.enum(PROMPT_STATUSES).describe('Review state, derived from the timestamps.'),
    published_on: dateTime.nullable(),
    reviewed_on: dateTime.nullable(),
    approved_on: dateTime.nullable(),
    decline_reason: z.string().nullable(),
    added_on: dateTime,
    modified_on: dateTime,
  })
  .meta({ id: 'Prompt' });
export type PromptView = z.input<typeof promptSchema>;
