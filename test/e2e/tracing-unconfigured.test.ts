import { randomBytes } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import request from 'supertest';
import { loadConfig } from '../../src/config/load';
import { startTracing, tracingEnabled } from '../../src/observability/tracing';
import { useSimulatedHarness } from '../helpers/completions';
import { isolatedSpace } from '../helpers/completion-fixtures';

/** Without an OTLP endpoint tracing is off entirely: the API's no-op tracer, no middleware, nothing in the job. */
const env = useSimulatedHarness();

describe('tracing configuration', () => {
  it('reads the standard OTLP variables, the general endpoint getting /v1/traces', () => {
    expect(loadConfig({}).observability.tracesUrl).toBeNull();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).observability.tracesUrl).toBe('http://collector:4318/v1/traces');
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:9999/in' }).observability.tracesUrl,
    ).toBe('http://traces:9999/in');
    expect(loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'api-key=a%20b, x-tenant=7' }).observability.otlpHeaders).toEqual({ 'api-key': 'a b', 'x-tenant': '7' });
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
  });
});

describe('without an endpoint', () => {
  it('registers nothing: spans are the no-op API spans and a job carries no trace context', async () => {
    const tracing = await startTracing(loadConfig({}).observability, 'single');
    expect(tracingEnabled()).toBe(false);
    expect(trace.getTracer('switchyard').startSpan('probe').spanContext().traceId).toBe('0'.repeat(32));

    const { tenant } = await isolatedSpace(env.h, { models: [{ name: 'answering' }] });
    const res = await request(env.h.app)
      .post('/v1/chat/completions')
      .set(tenant.auth)
      .set('traceparent', `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`)
      .set('X-Request-Id', 'caller-request-1')
      .send({ model: 'answering', messages: [{ role: 'user', content: 'Hello' }] });
    expect(res.status).toBe(200);
    const job = await env.h.services.queues.completions.getJob(String(res.headers['x-switchyard-log-id']));
    expect(job?.data.traceContext).toBeUndefined();
    expect(job?.data.httpRequestId).toBe('caller-request-1');
    await tracing.shutdown();
  });
});
