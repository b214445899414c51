import pino, { type Logger } from 'pino';

/** JSON logs on stdout; secrets never reach them. */
export function createLogger(level: string, base: Record<string, string> = {}): Logger {
  return pino({
    level,
    base: { service: 'switchyard', ...base },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', 'headers.authorization', 'api_key', 'apiKey', '*.apiKey'], censor: '[redacted]' },
  });
}
