import { z } from 'zod';
import { pageOf } from '../../schemas/common';
import { conversationListQuery, conversationSchema, createConversationBody } from '../../schemas/conversations';
import type { ConversationService } from '../../services/conversations/conversation-service';
import { defineRoute, type Route } from '../route';

const appParams = z.object({ app_id: z.uuid() });
const conversationParams = appParams.extend({ conversation_id: z.uuid() });
const tags = ['Conversations'];

export function conversationRoutes({ conversations }: { conversations: ConversationService }): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/apps/{app_id}/conversations/create',
      operationId: 'createConversation',
      summary: 'Create a conversation in a Space',
      description:
        '`settings.assistant_id` must name an assistant of this Space the caller sees, and `settings.assistant_version_id` one of its versions; with only the assistant, its current version is stored. `added_on` and `modified_on` allow importing conversations.',
      tags,
      permission: 'conversations:write',
      params: appParams,
      body: createConversationBody,
      response: conversationSchema,
      status: 201,
      errors: [404],
      handle: ({ auth, params, body }) => conversations.create(auth, params.app_id, body),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/apps/{app_id}/conversations',
      operationId: 'listConversations',
      summary: 'List the conversations of a Space, newest first',
      description: 'Deleted conversations are left out.',
      tags,
      permission: 'conversations:read',
      params: appParams,
      query: conversationListQuery,
      response: pageOf(conversationSchema),
      status: 200,
      errors: [404],
      handle: ({ auth, params, query }) => conversations.list(auth, params.app_id, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/apps/{app_id}/conversations/{conversation_id}',
      operationId: 'getConversation',
      summary: 'Read a conversation',
      tags,
      permission: 'conversations:read',
      params: conversationParams,
      response: conversationSchema,
      status: 200,
      errors: [404],
      handle: ({ auth, params }) => conversations.get(auth, params.app_id, params.conversation_id),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/apps/{app_id}/conversations/{conversation_id}',
      operationId: 'deleteConversation',
      summary: 'Delete a conversation',
      description: 'Soft delete: sets `deleted_on` and returns the conversation; from then on it answers 404. Its logs are kept.',
      tags,
      permission: 'conversations:write',
      params: conversationParams,
      response: conversationSchema,
      status: 200,
      errors: [404],
      handle: ({ auth, params }) => conversations.delete(auth, params.app_id, params.conversation_id),
    }),
  ];
}
