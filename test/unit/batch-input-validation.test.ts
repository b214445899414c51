import { Readable } from 'node:stream';
import { batchOutputLine } from '../../src/formats/openai-batch-line';
import { MAX_LISTED_ERRORS, validateInput, type ValidLine } from '../../src/services/batches/validate-input';

const ENDPOINT = '/v1/chat/completions';
const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
const line = (customId: string, extra: Record<string, unknown> = {}) => JSON.stringify({ custom_id: customId, method: 'POST', url: ENDPOINT, body, ...extra });

async function validate(text: string): Promise<{ kept: ValidLine[]; total: number; errors: { line: number | null; code: string; param: string | null }[] }> {
  const kept: ValidLine[] = [];
  const { total, errors } = await validateInput(Readable.from([Buffer.from(text)]), { endpoint: ENDPOINT, keep: async (lines) => void kept.push(...lines) });
  return { kept, total, errors: errors.map(({ line: at, code, param }) => ({ line: at, code, param })) };
}

describe('batch input validation', () => {
  it('keeps valid lines with their numbers, skipping blank lines and reading CRLF', async () => {
    const { kept, total, errors } = await validate(`${line('a')}\r\n\r\n${line('b')}\n`);
    expect(errors).toEqual([]);
    expect(total).toBe(2);
    expect(kept.map((l) => [l.line, l.customId])).toEqual([
      [1, 'a'],
      [3, 'b'],
    ]);
    expect(kept[0]?.body).toEqual(body);
  });

  it.each([
    { what: 'not JSON', text: '{', code: 'invalid_json', param: null },
    { what: 'an array', text: '[1]', code: 'invalid_request', param: null },
    { what: 'a number custom_id', text: JSON.stringify({ custom_id: 1, method: 'POST', url: ENDPOINT, body }), code: 'invalid_custom_id', param: 'custom_id' },
    { what: 'another method', text: line('x', { method: 'PUT' }), code: 'invalid_method', param: 'method' },
    { what: 'another url', text: line('x', { url: '/v1/completions' }), code: 'invalid_url', param: 'url' },
    { what: 'no body', text: line('x', { body: undefined }), code: 'invalid_body', param: 'body' },
    { what: 'a bad body field', text: line('x', { body: { ...body, temperature: 5 } }), code: 'invalid_body', param: 'body.temperature' },
    { what: 'a stream', text: line('x', { body: { ...body, stream: true } }), code: 'invalid_body', param: 'body.stream' },
    { what: 'a NUL character', text: line('x', { body: { ...body, user: 'a\u0000b' } }), code: 'invalid_body', param: 'body.user' },
  ])('names the line and field of $what', async ({ text, code, param }) => {
    expect((await validate(`${line('ok')}\n${text}\n`)).errors).toEqual([{ line: 2, code, param }]);
  });

  it('refuses a repeated custom_id and keeps nothing once a line is wrong', async () => {
    const { kept, errors } = await validate(`${line('a')}\n${line('a')}\n`);
    expect(errors).toEqual([{ line: 2, code: 'duplicate_custom_id', param: 'custom_id' }]);
    expect(kept).toEqual([]);
  });

  it(`lists at most ${MAX_LISTED_ERRORS} problems`, async () => {
    expect((await validate('{\n'.repeat(MAX_LISTED_ERRORS + 50))).errors).toHaveLength(MAX_LISTED_ERRORS);
  });
});

describe('batch output lines', () => {
  const identity = { batchId: 'batch_1', line: 3, customId: 'c' };

  it('gives a stable id per (batch, line) and OpenAI’s expired error', () => {
    const expired = JSON.parse(batchOutputLine(identity, 'expired')) as Record<string, unknown>;
    expect(expired).toEqual({
      id: expect.stringMatching(/^batch_req_[0-9a-f]{32}$/),
      custom_id: 'c',
      response: null,
      error: { code: 'batch_expired', message: expect.any(String) },
    });
    expect(batchOutputLine(identity, 'expired')).toBe(batchOutputLine(identity, 'expired'));
    expect(JSON.parse(batchOutputLine({ ...identity, line: 4 }, 'expired')).id).not.toBe(expired.id);
  });

  it('puts a failure in response with its status and error body', () => {
    const failure = { status: 429, type: 'rate_limit_error', code: 'upstream_rate_limited', message: 'slow down', param: null };
    expect(JSON.parse(batchOutputLine(identity, { requestId: 'r1', outcome: { failure } }))).toEqual({
      id: expect.any(String),
      custom_id: 'c',
      response: {
        status_code: 429,
        request_id: 'r1',
        body: { error: { message: 'slow down', type: 'rate_limit_error', code: 'upstream_rate_limited', param: null } },
      },
      error: null,
    });
  });
});
