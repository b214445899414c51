import { z } from 'zod';
import { dateTime, pageQuery, storableDateTime, uuid } from './common';

const settingsBody = z
  .strictObject({
    assistant_id: uuid.nullable().optional().describe('An assistant of this Space.'),
    assistant_version_id: uuid.nullable().optional().describe("A version of that assistant; when omitted, the assistant's current version is stored."),
  })
  .meta({ id: 'ConversationSettingsInput' });

export const createConversationBody = z
  .strictObject({
    name: z.string().max(200).default(''),
    settings: settingsBody.optional(),
    added_on: storableDateTime.optional().describe('For importing conversations; defaults to now.'),
    modified_on: storableDateTime
      .optional()
      .describe('For importing conversations; defaults to now (or to `added_on` when that is later); must not be before `added_on`.'),
  })
  .meta({ id: 'ConversationCreate' });
export type CreateConversationInput = z.output<typeof createConversationBody>;

export const conversationListQuery = pageQuery;

export const conversationSettingsSchema = z
  .object({ assistant_id: uuid.nullable(), assistant_version_id: uuid.nullable() })
  .meta({ id: 'ConversationSettings' });
export type ConversationSettings = z.output<typeof conversationSettingsSchema>;

export const conversationSchema = z
  .object({
    id: uuid,
    app_id: uuid.describe('Extension of the contract: the Space the conversation belongs to.'),
    name: z.string(),
    added_on: dateTime,
    modified_on: dateTime,
    deleted_on: dateTime.nullable(),
    settings: conversationSettingsSchema,
  })
  .meta({ id: 'Conversation' });
export type ConversationView = z.input<typeof conversationSchema>;
