import type { RequestHandler } from 'express';
import { httpMetrics } from './http-metrics';
import { httpTracing } from './http-tracing';

/** First in the app: the request's span (when tracing is on), then its count and timing. */
export function httpTelemetry(): RequestHandler[] {
  return [...httpTracing(), httpMetrics()];
}
