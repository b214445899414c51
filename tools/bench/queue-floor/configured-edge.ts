import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { Counter, Histogram, Registry } from 'prom-client';
import { z } from 'zod';

/**
 * What the configured floor's API adds to the required floor's, each the leanest way the contract
 * allows: the key checked (its SHA-256 looked up in a map that already holds it, as a warm cache
 * would), the request checked against the chat completion request's fields (OpenAI's and the spec's,
 * in one zod schema) with a 400 naming the field, and each request counted and timed for the
 * operators' metrics.
 */

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const imagePart = z.object({
  type: z.literal('image_url'),
  image_url: z.object({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).optional() }),
});
const message = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  content: z.union([z.string(), z.array(z.discriminatedUnion('type', [textPart, imagePart])), z.null()]).optional(),
  name: z.string().optional(),
  tool_calls: z.array(z.object({ id: z.string(), type: z.literal('function'), function: z.object({ name: z.string(), arguments: z.string() }) })).optional(),
  tool_call_id: z.string().optional(),
});
const tool = z.object({
  type: z.literal('function'),
  function: z.object({ name: z.string().min(1).max(64), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() }),
});
const weights = z.object({ cost: z.number(), latency: z.number(), quality: z.number() }).partial();

/** The chat completion request (the spec's CompletionRequest: OpenAI's fields and the spec's own). */
export const floorRequestSchema = z.looseObject({
  model: z.string().min(1).optional(),
  messages: z.array(message).min(1),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  n: z.number().int().min(1).max(16).optional(),
  stream: z.boolean().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullable().optional(),
  stop: z
    .union([z.string(), z.array(z.string()).max(4)])
    .nullable()
    .optional(),
  presence_penalty: z.number().min(-2).max(2).optional(),
  frequency_penalty: z.number().min(-2).max(2).optional(),
  tools: z.array(tool).optional(),
  tool_choice: z.union([z.enum(['none', 'auto', 'required']), z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) })]).optional(),
  response_format: z
    .object({ type: z.enum(['text', 'json_object', 'json_schema']) })
    .loose()
    .optional(),
  seed: z.number().int().optional(),
  user: z.string().optional(),
  plugins: z.array(z.string()).optional(),
  custom_headers: z
    .object({ labels: z.record(z.string(), z.unknown()).optional(), weights: weights.optional(), feature_flags: z.record(z.string(), z.boolean()).optional() })
    .optional(),
});

/** Lets in a request whose Bearer key hashes to `keyHash`; anything else gets a 401. */
export function floorKeyCheck(keyHash: string): RequestHandler {
  const keys = new Map([[keyHash, { org: 'bench', app: 'bench' }]]);
  return (req, res, next) => {
    const header = req.headers.authorization;
    const key = header?.startsWith('Bearer ') ? header.slice(7) : '';
    if (!keys.has(createHash('sha256').update(key).digest('hex'))) {
      res.status(401).json({ error: { message: 'Invalid API key', type: 'invalid_request_error', code: 'invalid_api_key' } });
      return;
    }
    next();
  };
}

/** Counts each request by method, route and status, and times it until its response ends. */
export function floorHttpMetrics(): RequestHandler {
  const registry = new Registry();
  const requests = new Counter({ name: 'http_requests_total', help: 'requests', labelNames: ['method', 'route', 'status'] as const, registers: [registry] });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'duration',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const labels = { method: req.method, route: '/v1/chat/completions', status: String(res.statusCode) };
      requests.inc(labels);
      duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}

/** The parsed request, or a 400 naming the first field that failed (null then: the answer is sent). */
export function validated(body: unknown, send400: (param: string, message: string) => void): Record<string, unknown> | null {
  const parsed = floorRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  send400(issue?.path.join('.') ?? '', issue?.message ?? 'invalid request');
  return null;
}
