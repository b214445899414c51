import pino from 'pino';
import type { ModelPlan } from '../../src/pipeline/model-plan';
import type { PreparedCompletion } from '../../src/pipeline/prepare-request';
import type { Run } from '../../src/pipeline/run';
import { RunTrace } from '../../src/pipeline/run-trace';
import type { CompletionJob } from '../../src/queue/payloads';
import type { SpaceContext } from '../../src/store/space-context';
import { decidedJobParts } from './completion-job';
import { preparedCompletion } from './prepared-completion';
import { routable } from './routable-model';
import { spaceContext } from './space-context';

/** A model plan of one model, as a named model that was not ranked gets. */
export function singleModelPlan(model = routable()): ModelPlan {
  return {
    first: model,
    choices: [model],
    attempts: [model],
    scores: { best_models: [], candidates: [], router: { version: 'test', kind: 'test', smart_learn: false, explored: false } },
    score: 0,
    warnings: [],
  };
}

/** A run of a plain request (`hi`) for pipeline unit tests: every field real, each replaceable. */
export function testRun(
  overrides: {
    job?: Partial<CompletionJob>;
    space?: Partial<SpaceContext>;
    prepared?: Partial<PreparedCompletion>;
    plan?: ModelPlan;
    signal?: AbortSignal;
  } = {},
): Run {
  const space = spaceContext(overrides.space);
  const now = Date.now();
  const job: CompletionJob = {
    requestId: 'req-1',
    orgId: space.orgId,
    appId: space.id,
    spaceStamp: '',
    idpId: 'someone',
    ...decidedJobParts({ messages: [{ role: 'user', content: 'hi' }] }, { space }),
    deadline: now + 60_000,
    receivedAt: now,
    ...overrides.job,
  };
  return {
    job,
    id: 'run-1',
    space,
    prepared: { ...preparedCompletion(), ...overrides.prepared },
    plan: overrides.plan ?? singleModelPlan(),
    trace: new RunTrace(),
    signal: overrides.signal ?? new AbortController().signal,
    logger: pino({ level: 'silent' }),
    reply: () => Promise.resolve(),
  };
}
