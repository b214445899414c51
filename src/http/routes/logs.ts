import { z } from 'zod';
import { pageOf } from '../../schemas/common';
import { logListQuery, logQuery, logSchema, rateLogBody, saveLogBody } from '../../schemas/logs';
import type { LogService } from '../../services/logs/log-service';
import { defineRoute, type Route } from '../route';

const logParams = z.object({ log_id: z.uuid() });
const tags = ['Logs'];

const SCOPE_NOTE = "Only logs of the caller's organization; logs of privacy level 3 are never shown (they answer 404 like an unknown id).";

export function logRoutes({ logs }: { logs: LogService }): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/logs',
      operationId: 'listLogs',
      summary: 'List request logs, newest first',
      description: `${SCOPE_NOTE} Sub-requests (logs with a parent) are left out unless \`include_children=true\`; \`children\` is always null here.`,
      tags,
      permission: 'logs:read',
      query: logListQuery,
      response: pageOf(logSchema),
      status: 200,
      errors: [404],
      handle: ({ auth, query }) => logs.list(auth, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/logs/{log_id}',
      operationId: 'getLog',
      summary: 'Read a request log',
      description: SCOPE_NOTE,
      tags,
      permission: 'logs:read',
      params: logParams,
      query: logQuery,
      response: logSchema,
      status: 200,
      errors: [404],
      handle: ({ auth, params, query }) => logs.get(auth, params.log_id, { children: query.include === 'children' }),
    }),
    defineRoute({
      method: 'put',
      path: '/v1/logs/{log_id}/rating',
      operationId: 'rateLog',
      summary: 'Rate the answer of a request',
      tags,
      permission: 'logs:rate',
      params: logParams,
      body: rateLogBody,
      response: logSchema,
      status: 200,
      errors: [404],
      handle: ({ auth, params, body }) => logs.rate(auth, params.log_id, body),
    }),
    defineRoute({
      method: 'put',
      path: '/v1/logs/{log_id}/saved',
      operationId: 'saveLog',
      summary: 'Mark a request log as saved for later, or unmark it',
      tags,
      permission: 'logs:rate',
      params: logParams,
      body: saveLogBody,
      response: logSchema,
      status: 200,
      errors: [404],
      handle: ({ auth, params, body }) => logs.save(auth, params.log_id, body.is_saved_for_later),
    }),
  ];
}
