import type { Express } from 'express';
import request from 'supertest';
import type { Model, Prisma } from '../../src/generated/prisma/client';
import { MASK } from '../../src/pipeline/privacy';
import { batchLine, chatBody, createBatch, uploadInput } from '../helpers/batch-fixtures';
import type { Tenant, TestContext } from '../helpers/test-context';

/** What the console's browser test finds in its organization; logs are inserted as the pipeline writes them. */
export interface ConsoleSeed {
  mini: Model;
  other: Model;
  /** A routed request with a sub-request and the router's scores. */
  routedLogId: string;
  failedLogId: string;
  /** Its prompt is markup, which must show as text. */
  hostileLogId: string;
  maskedLogId: string;
  promptTitle: string;
  batchId: string;
}

export const HOSTILE_PROMPT = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';
const DAY_MS = 86_400_000;

function scoresResponse(mini: Model, other: Model) {
  return {
    id: 'chatcmpl-seed',
    object: 'chat.completion',
    model: mini.model,
    created: 1,
    choices: [{ index: 0, message: { role: 'assistant', content: '4' }, finish_reason: 'stop', logprobs: null }],
    metadata: {
      scores: {
        best_models: [mini.model],
        candidates: [
          { model: mini.model, provider: mini.provider, score: 0.912, quality: 0.81, offline_quality: 0.8, cost: 0.00002, latency: 420 },
          { model: other.model, provider: other.provider, score: 0.644, quality: 0.9, offline_quality: 0.9, cost: 0.0012, latency: 900 },
        ],
        router: { version: 'v3', kind: 'math', smart_learn: false, explored: false },
      },
    },
  };
}

export async function seedConsole(ctx: TestContext, app: Express, owner: Tenant): Promise<ConsoleSeed> {
  const db = ctx.services.db;
  const mini = await db.model.findFirstOrThrow({ where: { model: 'gpt-4o-mini', app_id: null, org_id: null } });
  const other = await db.model.findFirstOrThrow({ where: { model: { not: 'gpt-4o-mini' }, provider: { not: mini.provider }, app_id: null, org_id: null } });
  const now = Date.now();
  const log = (daysAgo: number, data: Partial<Prisma.LogUncheckedCreateInput>) =>
    db.log.create({
      data: {
        org_id: owner.org_id,
        app_id: owner.app_id,
        timestamp: BigInt(now - daysAgo * DAY_MS),
        added_on: new Date(now - daysAgo * DAY_MS),
        status_code: 200,
        latency: 420,
        ...data,
      },
    });

  const routed = await log(3, {
    model_id: mini.id,
    prompt: 'What is 2 + 2?',
    response_text: '4',
    prompt_tokens: 12,
    completion_tokens: 1,
    total_tokens: 13,
    total_tokens_cost: 0.004,
    total_tokens_cost_savings: 0.03,
    response: scoresResponse(mini, other),
  });
  await log(3, {
    parent_id: routed.id,
    model_id: mini.id,
    request_type: 'chat_completions',
    total_tokens: 13,
    total_tokens_cost: 0.004,
    costs_incurred: true,
    prompt: 'What is 2 + 2?',
  });
  const failed = await log(2, { model_id: other.id, prompt: 'Summarise the report', status_code: 502, total_tokens_cost: 0.01 });
  const hostile = await log(1, {
    model_id: mini.id,
    prompt: HOSTILE_PROMPT,
    response_text: HOSTILE_PROMPT,
    total_tokens: 40,
    total_tokens_cost: 0.002,
    total_tokens_cost_savings: 0.02,
  });
  const masked = await log(0.5, {
    model_id: other.id,
    prompt: MASK,
    response_text: MASK,
    privacy_level: 2,
    total_tokens: 90,
    total_tokens_cost: 0.02,
    total_tokens_cost_savings: 0.005,
  });

  const promptTitle = 'Support tone';
  const prompt = await request(app)
    .post('/v1/prompts')
    .set(owner.auth)
    .send({ title: promptTitle, description: 'Friendly and short', prompt: 'Answer kindly, in two sentences.' });
  await request(app).post(`/v1/prompts/${prompt.body.id}/publish`).set(owner.auth).expect(200);

  const fileId = await uploadInput(app, owner, [batchLine('a', chatBody(mini.model, 'hi')), batchLine('b', chatBody(mini.model, 'bye'))]);
  const batch = await createBatch(app, owner, fileId);
  // No worker runs here: the batch is moved halfway through by hand, as its coordinator would.
  await db.batch.update({ where: { id: batch.id }, data: { status: 'in_progress', in_progress_at: new Date(), total_count: 2, completed_count: 1 } });
  return { mini, other, routedLogId: routed.id, failedLogId: failed.id, hostileLogId: hostile.id, maskedLogId: masked.id, promptTitle, batchId: batch.id };
}
