import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * Paths redacted from every log line. The request logger does not log bodies, and plugin
 * credentials are sealed before anything could log them; these are the second line, in case a body
 * or a plugin's account object reaches a log one day.
 */
const SOCIAL_POST_BODY = 'settings.plugins["social-post"]';
const REDACTED_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  // Anthropic's clients send the key here (POST /v1/messages).
  'req.headers["x-api-key"]',
  'headers["x-api-key"]',
  'api_key',
  'apiKey',
  '*.apiKey',
  // Space credentials (social-post): write-only fields of PUT /v1/apps/update and the opened accounts.
  'access_token',
  '*.access_token',
  'app_password',
  '*.app_password',
  'accessToken',
  '*.accessToken',
  'appPassword',
  '*.appPassword',
  'accessJwt',
  '*.accessJwt',
  ...['body', 'req.body'].flatMap((root) => [`${root}.${SOCIAL_POST_BODY}.mastodon.access_token`, `${root}.${SOCIAL_POST_BODY}.bluesky.app_password`]),
];

/** JSON logs on stdout (or `destination`, e.g. a test's buffer); secrets never reach them. */
export function createLogger(level: string, base: Record<string, string> = {}, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'switchyard', ...base },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}
