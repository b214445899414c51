import { z } from 'zod';
import { pageOf } from '../../schemas/common';
import { logListQuery, logQuery, logSchema, rateLogBody, saveLogBody } from '../../schemas/logs';
import { logSummaryQuery, logSummarySchema } from '../../schemas/log-summary';
import type { LogService } from '../../services/logs/log-service';
import type { LogSummaryService } from '../../services/logs/log-summary-service';
import { defineRoute, type Route } from '../route';

const logParams = z.object({ log_id: z.uuid() });
const tags = ['Logs'];

const SCOPE_NOTE = "Only logs of the caller's organization; logs of privacy level 3 are never shown (they answer 404 like an unknown id).";

export function logRoutes({ logs, logSummary }: { logs: LogService; logSummary: LogSummaryService }): Route[] {
  return [
    // Before `/v1/logs/{log_id}`, which would otherwise take `summary` for an id.
    defineRoute({
      method: 'get',
      path: '/v1/logs/summary',
      operationId: 'summarizeLogs',
      summary: 'Requests, errors, tokens, cost and savings per day, Space or model',
      description:
        "Totals of the organization's top-level requests (a sub-request's cost is already in its parent's), bucketed by `group_by`, in the half-open range `created_after` ≤ added_on < `created_before`. Logs of privacy level 3 are never counted. An `app_id` of another organization answers 404.",
      tags,
      permission: 'logs:read',
      query: logSummaryQuery,
      response: logSummarySchema,
      status: 200,
      errors: [404],
      handle: ({ auth, query }) => logSummary.summarize(auth, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/logs',
      operationId: 'listLogs',
      summary: 'List request logs, newest first',
      description: `${SCOPE_NOTE} Sub-requests (logs with a parent) are left out unless \`include_children=true\`; \`children\` is always null here. The date range is half-open: \`created_after\` ≤ added_on < \`created_before\`.`,
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
