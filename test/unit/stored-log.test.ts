import { randomUUID } from 'node:crypto';
import type { CompletionFailure, CompletionResult, RunReport } from '../../src/domain/completion';
import type { RoutableModel } from '../../src/domain/routable-model';
import { chatLogResponse } from '../../src/formats/openai-chat';
import type { Log } from '../../src/generated/prisma/client';
import type { AttemptRecord } from '../../src/pipeline/attempt-record';
import { turnsToMessages } from '../../src/pipeline/conversation-turns';
import { logRowsFor, type LogRow, type RequestOutcome } from '../../src/pipeline/log-rows';
import { RunTrace } from '../../src/pipeline/run-trace';
import type { CompletionJob } from '../../src/queue/payloads';
import { learnFromRating } from '../../src/routing/online/rating-lesson';
import { readStoredLog } from '../../src/schemas/stored-log';
import { logResponseView } from '../../src/services/logs/log-response';
import { stepsOf } from '../../src/services/logs/log-steps';

const model = (name: string): RoutableModel => ({
  id: randomUUID(),
  model: name,
  provider: 'openai',
  namespace: `${name}-ns`,
  owner: 'OpenAI',
  at: '',
  contextWindow: 128_000,
  promptTokenCost: 1e-6,
  completionTokenCost: 2e-6,
  baseCost: 0,
  supports: { functions: true, json: true, vision: false, stream: true, n: false, penalties: false, reasoning: false },
  isGdpr: false,
  deprecatedOn: null,
  until: null,
  quality: { overall: 0.8, categories: {} },
});

const answering = model('answering');
const other = model('other');
const usage = { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 };
const RECEIVED_AT = 1_796_640_836_123;
const scores = {
  best_models: ['answering'],
  candidates: [{ model: 'answering', provider: 'openai', score: 0.87, quality: 0.87, offline_quality: 0.8, cost: 0.0001, latency: 900 }],
  router: { version: 'router-1', kind: 'chat', smart_learn: true, explored: false },
};

function resultOf(trace: RunTrace, requestId: string, extra: Partial<RunReport> = {}): CompletionResult {
  return {
    requestId,
    created: Math.floor(RECEIVED_AT / 1000),
    model: { id: answering.id, model: answering.model, namespace: answering.namespace, provider: answering.provider, owner: answering.owner, at: answering.at },
    choices: [{ index: 0, message: { role: 'assistant', content: 'Oslo.' }, finish_reason: 'stop' }],
    usage: trace.totalUsage(),
    statusCode: 200,
    report: {
      appId: 'app-1',
      costs: trace.costs(),
      savings: { prompt_tokens: 0.000001, completion_tokens: 0, total_tokens: 0.000001 },
      latencyMs: trace.answered?.latencyMs ?? 0,
      retries: trace.retries(),
      warnings: [],
      labels: { team: 'search' },
      scores,
      score: 0.87,
      temperature: 0.3,
      searchResults: trace.searchResults,
      artifacts: trace.artifacts,
      plugins: trace.plugins,
      ...extra,
    },
  };
}

/** A result as a version 1 log stored it: the answer and the report's fields side by side. */
function asVersion1({ report, ...answer }: CompletionResult): Record<string, unknown> {
  return { ...answer, ...report };
}

const call = (m: RoutableModel, fields: Partial<AttemptRecord> = {}): AttemptRecord => ({
  kind: 'model',
  model: m,
  retry: 0,
  startedAt: RECEIVED_AT + 5,
  latencyMs: 42,
  statusCode: 200,
  usage,
  ...fields,
});

function outcomeOf(trace: RunTrace, options: { level?: number; ended?: (requestId: string) => RequestOutcome['ended'] } = {}): RequestOutcome {
  const requestId = randomUUID();
  const messages = [{ role: 'user' as const, content: 'What is the capital of Norway?' }];
  const job = {
    requestId,
    orgId: randomUUID(),
    appId: 'app-1',
    idpId: 'idp',
    receivedAt: RECEIVED_AT,
    privacyLevel: options.level ?? 1,
    request: { chat: { messages }, query: messages[0]?.content, labels: { team: 'search' }, plugins: [], stream: false },
    payload: { model: 'answering' },
  };
  const ended = options.ended?.(requestId) ?? { result: resultOf(trace, requestId) };
  return { job: job as unknown as CompletionJob, isTest: false, trace, ended, responseText: 'Oslo.' };
}

function written(rows: ReturnType<typeof logRowsFor>): NonNullable<ReturnType<typeof logRowsFor>> {
  if (!rows) throw new Error('no log written');
  return rows;
}

/** A written row as PostgreSQL gives it back: every column, defaults where the row set none. */
function stored(row: LogRow): Log {
  const json = JSON.parse(JSON.stringify(row)) as Record<string, unknown>;
  return {
    conversation_id: null,
    parent_request_id: null,
    parent_id: null,
    idp_id: null,
    model_id: null,
    good_answer: null,
    feedback: '',
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    prompt_tokens_cost: 0,
    completion_tokens_cost: 0,
    total_tokens_cost: 0,
    prompt_tokens_cost_savings: 0,
    completion_tokens_cost_savings: 0,
    total_tokens_cost_savings: 0,
    costs_incurred: true,
    namespace: null,
    payload: {},
    privacy_level: 1,
    prompt: null,
    request_type: 'chat_completions',
    response_text: '',
    status_code: -1,
    is_test: false,
    added_on: new Date('2026-12-07T10:00:00Z'),
    latency: -1,
    is_saved_for_later: false,
    comment_count: 0,
    labels: {},
    collections: null,
    app_id: null,
    response: {},
    ...json,
    timestamp: BigInt(row.timestamp),
  } as Log;
}

/** A request answered by one call: the trace as the pipeline leaves it. */
function oneCall(fields: Partial<AttemptRecord> = {}): RunTrace {
  const trace = new RunTrace();
  trace.addAttempts([call(answering, fields)]);
  trace.addAnswer(answering, { usage, latencyMs: 42 });
  return trace;
}

describe('the log of a request answered by one model call', () => {
  it('is one row, which keeps the call (what its child row held)', () => {
    const rows = logRowsFor(outcomeOf(oneCall()));
    expect(rows?.children).toEqual([]);
    expect(rows?.parent).toMatchObject({ model_id: answering.id, namespace: answering.namespace, status_code: 200, latency: 42, total_tokens: 21 });
    expect(rows?.parent.response).toMatchObject({
      v: 2,
      answer: { choices: [{ message: { content: 'Oslo.' } }], usage, model: { id: answering.id }, status: 200 },
      report: { scores, costs: { total_tokens: 0.00003 } },
      call: {
        provider: 'openai',
        started_at: RECEIVED_AT + 5,
        latency_ms: 42,
        status: 200,
        usage,
        costs: { prompt_tokens: 0.000012, completion_tokens: 0.000018, total_tokens: 0.00003 },
      },
    });
    // Not the request's id nor `created`: the row's `id` and `timestamp` hold them; empty lists are left out and read back empty.
    expect(JSON.stringify(rows?.parent.response)).not.toContain(rows?.parent.id);
    expect(stored(written(rows).parent).response).not.toHaveProperty('report.plugins');
    expect(readStoredLog(stored(written(rows).parent).response)?.report).toMatchObject({
      plugins: [],
      warnings: [],
      search_results: [],
      artifacts: [],
      labels: { team: 'search' },
    });
  });

  it('shows that call as the one step, with the figures its child row had', () => {
    const rows = logRowsFor(outcomeOf(oneCall()));
    const row = stored(written(rows).parent);
    const [step, ...more] = stepsOf(row, []);
    expect(more).toEqual([]);
    expect(step).toMatchObject({
      id: row.id,
      parent_id: row.id,
      model_id: answering.id,
      namespace: answering.namespace,
      timestamp: BigInt(RECEIVED_AT + 5),
      status_code: 200,
      latency: 42,
      payload: { step: 'model', model: answering.namespace, provider: 'openai', retry: 0 },
      response: { usage },
      response_text: '',
      prompt: null,
      prompt_tokens: 12,
      completion_tokens: 9,
      total_tokens: 21,
      prompt_tokens_cost: 0.000012,
      completion_tokens_cost: 0.000018,
      total_tokens_cost: 0.00003,
      total_tokens_cost_savings: 0,
      costs_incurred: true,
      labels: {},
    });
  });

  it('keeps a failed call: its upstream status and error, the request its own status', () => {
    const error = Object.assign(new Error('upstream said no'), { kind: 'bad_request', status: 400, retryable: false });
    const trace = new RunTrace();
    trace.addAttempts([
      call(answering, {
        statusCode: 400,
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        error: error as unknown as AttemptRecord['error'],
      }),
    ]);
    const failure: CompletionFailure = {
      status: 502,
      type: 'upstream_error',
      code: 'upstream_bad_request',
      message: 'The model refused the request.',
      param: null,
    };
    const rows = logRowsFor({ ...outcomeOf(trace, { ended: () => ({ failure }) }), endedAt: RECEIVED_AT + 60 });
    expect(rows?.children).toEqual([]);
    const row = stored(written(rows).parent);
    expect(row).toMatchObject({ status_code: 502, latency: 60 });
    expect(stepsOf(row, [])[0]).toMatchObject({
      status_code: 400,
      latency: 42,
      response: { error: { kind: 'bad_request', status: 400, message: 'upstream said no' } },
      response_text: 'upstream said no',
      costs_incurred: false,
    });
    expect(readStoredLog(row.response)).toMatchObject({ version: 2, answer: null, failure });
  });

  it('shows the same response through the logs API as the result it stored', () => {
    const outcome = outcomeOf(oneCall());
    const row = stored(written(logRowsFor(outcome)).parent);
    expect(logResponseView(row)).toEqual(chatLogResponse(outcome.ended));
  });

  it('masks the content at privacy level 2, and still reads', () => {
    const rows = logRowsFor(outcomeOf(oneCall(), { level: 2 }));
    const row = stored(written(rows).parent);
    expect(JSON.stringify(row.response)).not.toContain('Oslo');
    const view = readStoredLog(row.response);
    expect(view).toMatchObject({ version: 2, answer: { choices: [{ message: { content: '[masked]' } }] }, call: { status: 200 } });
    expect(view?.report?.scores.router.smart_learn).toBe(true);
  });

  it('writes nothing at privacy level 3', () => {
    expect(logRowsFor(outcomeOf(oneCall(), { level: 3 }))).toBeNull();
  });
});

describe('the log of a request with sub-requests', () => {
  it('after a failover: a row and one child per call, the call figures in the children', () => {
    const error = Object.assign(new Error('overloaded'), { kind: 'server_error', status: 503, retryable: true });
    const trace = new RunTrace();
    trace.addAttempts([
      call(other, {
        statusCode: 503,
        latencyMs: 7,
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        error: error as unknown as AttemptRecord['error'],
      }),
      call(answering, { startedAt: RECEIVED_AT + 20 }),
    ]);
    trace.addAnswer(answering, { usage, latencyMs: 42 });
    const rows = logRowsFor(outcomeOf(trace));
    expect(rows?.children.map((child) => [child.namespace, child.status_code, child.total_tokens, child.costs_incurred])).toEqual([
      [other.namespace, 503, 0, false],
      [answering.namespace, 200, 21, true],
    ]);
    expect(stored(written(rows).parent).response).not.toHaveProperty('call');
    const parent = stored(written(rows).parent);
    const children = written(rows).children.map(stored);
    expect(stepsOf(parent, children)).toBe(children);
  });

  it('with a plugin: a row and one child per step', () => {
    const trace = new RunTrace();
    trace.addPlugin(
      {
        kind: 'plugin',
        plugin: 'web-search',
        backend: 'web-search:searxng',
        startedAt: RECEIVED_AT + 1,
        latencyMs: 5,
        statusCode: 200,
        costUsd: 0.002,
        query: 'q',
        results: 1,
        artifacts: 0,
        cached: false,
      },
      { id: 'web-search', trigger: 'requested', reason: 'named', status: 'ok', latency_ms: 5, cost: 0.002 },
    );
    trace.addAttempts([call(answering)]);
    trace.addAnswer(answering, { usage, latencyMs: 42 });
    const rows = logRowsFor(outcomeOf(trace));
    expect(rows?.children.map((child) => (child.payload as { step: string }).step)).toEqual(['plugin', 'model']);
    expect(rows?.parent.response).toMatchObject({ v: 2, report: { plugins: [{ id: 'web-search', cost: 0.002 }] } });
    expect(stored(written(rows).parent).response).not.toHaveProperty('call');
  });
});

describe('readStoredLog', () => {
  const result = () => asVersion1(resultOf(oneCall(), randomUUID()));

  it('reads a version 1 result, and its partial under a failure', () => {
    const v1 = readStoredLog(JSON.parse(JSON.stringify({ result: result() })));
    expect(v1).toMatchObject({
      version: 1,
      answer: { choices: [{ message: { content: 'Oslo.' } }], status: 200 },
      report: { scores, labels: { team: 'search' } },
      failure: null,
      call: null,
    });
    const failure = { status: 502, type: 'upstream_error', code: 'stream_cut', message: 'cut', param: null };
    const partial = readStoredLog(JSON.parse(JSON.stringify({ failure, partial: result() })));
    expect(partial).toMatchObject({ version: 1, failure, answer: { choices: [{ message: { content: 'Oslo.' } }] } });
    expect(readStoredLog({ failure })).toMatchObject({ version: 1, failure, answer: null, report: null });
  });

  it('reads a version 1 result masked at level 2 (fields left undefined were stored as null)', () => {
    const masked = JSON.parse(JSON.stringify({ result: { ...result(), error: null, autoTools: null, maxTokens: null } }));
    expect(readStoredLog(masked)?.report).toMatchObject({ scores });
  });

  it('reads a version 0 chat completion: its answer, and its scores from the metadata', () => {
    const body = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: 'gpt-x',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop', logprobs: null }],
      usage,
      metadata: { scores },
    };
    expect(readStoredLog(body)).toMatchObject({
      version: 0,
      answer: { choices: [{ message: { content: 'Hi' } }], model: { model: 'gpt-x' } },
      report: { scores },
    });
  });

  it('reads no part that does not check, and nothing from a shape it does not know', () => {
    expect(readStoredLog({ v: 2, answer: { choices: 'not a list' }, report: { scores } })).toMatchObject({ answer: null, report: { scores } });
    expect(readStoredLog({})).toBeNull();
    expect(readStoredLog(null)).toBeNull();
    expect(readStoredLog({ v: 3 })).toBeNull();
  });
});

describe('the readers of a stored log', () => {
  const v2 = () => written(logRowsFor(outcomeOf(oneCall()))).parent.response;
  const v1 = () => JSON.parse(JSON.stringify({ result: asVersion1(resultOf(oneCall(), randomUUID())) })) as unknown;
  const v0 = { choices: [{ index: 0, message: { role: 'assistant', content: 'Oslo.' }, finish_reason: 'stop' }], metadata: { scores } };

  it.each([
    ['version 2', v2],
    ['version 1', v1],
    ['version 0', () => v0],
  ])('replay a %s turn of a conversation', (_, response) => {
    const turns = turnsToMessages([
      { payload: { messages: [{ role: 'user', content: 'Capital of Norway?' }] }, response: JSON.parse(JSON.stringify(response())) },
    ]);
    expect(turns).toEqual([
      { role: 'user', content: 'Capital of Norway?' },
      { role: 'assistant', content: 'Oslo.' },
    ]);
  });

  it.each([
    ['version 2', v2],
    ['version 1', v1],
    ['version 0', () => v0],
  ])('learn from the rating of a %s log', (_, response) => {
    const log = {
      parent_id: null,
      app_id: 'app-1',
      model_id: answering.id,
      good_answer: null,
      response: JSON.parse(JSON.stringify(response())),
      model: { model: 'answering', provider: 'openai' },
    };
    expect(learnFromRating(log, true)).toEqual({ key: { appId: 'app-1', modelId: answering.id, kind: 'chat' }, delta: { ratings: 1, good: 1, expected: 0.8 } });
  });
});
