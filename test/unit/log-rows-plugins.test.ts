import { logRowsFor, type RequestOutcome } from '../../src/pipeline/log-rows';
import { RunTrace } from '../../src/pipeline/run-trace';
import type { CompletionResult } from '../../src/domain/completion';
import { testResult } from '../helpers/completion-result';
import type { CompletionJob } from '../../src/queue/payloads';

const SECRET_URL = 'https://files.example.org/board-meeting-2026.mp3';
const SECRET_HOST = 'intranet.example.org';

/** A request at `privacyLevel` whose transcribe-audio ran on a URL and whose second file was refused. */
function outcome(privacyLevel: number): RequestOutcome {
  const trace = new RunTrace();
  const failure = `transcribe-audio failed: files[1] could not be fetched: audio-url: refused to fetch ${SECRET_HOST} (10.0.0.5)`;
  trace.addPlugin(
    {
      kind: 'plugin',
      plugin: 'transcribe-audio',
      backend: 'transcribe-audio:api',
      startedAt: 0,
      latencyMs: 5,
      statusCode: 400,
      costUsd: 0,
      query: 'q',
      results: 0,
      artifacts: 0,
      cached: false,
      error: { kind: 'invalid_value', status: 400, message: failure },
    },
    { id: 'transcribe-audio', trigger: 'requested', reason: 'named', status: 'failed', latency_ms: 5, cost: 0, error: failure },
  );
  // Pre-selection's reason quotes the words of the prompt that matched.
  trace.addPlugin(
    {
      kind: 'plugin',
      plugin: 'web-search',
      backend: 'web-search:searxng',
      startedAt: 0,
      latencyMs: 5,
      statusCode: 200,
      costUsd: 0,
      query: 'q',
      results: 0,
      artifacts: 0,
      cached: false,
    },
    { id: 'web-search', trigger: 'preselected', reason: "asks about current events ('latest merger of acme-secretco')", status: 'ok', latency_ms: 5, cost: 0 },
  );
  trace.errors.push(`${failure}.`);
  trace.artifacts.push({ type: 'transcript', plugin: 'transcribe-audio', text: 'minutes', source: SECRET_URL });
  const result = testResult({ report: { latencyMs: 10, artifacts: trace.artifacts, plugins: trace.plugins, error: trace.errors.join(' ') } });
  const request = { chat: { messages: [{ role: 'user', content: 'hi' }] }, model: null, files: [SECRET_URL], labels: {}, query: 'hi' };
  const job = {
    requestId: '00000000-0000-4000-8000-000000000001',
    orgId: 'o',
    appId: 'a',
    idpId: 'i',
    receivedAt: 0,
    privacyLevel,
    request,
    payload: { model: 'auto', files: [SECRET_URL] },
  };
  return { job: job as unknown as CompletionJob, isTest: false, trace, ended: { result }, responseText: 'answer' };
}

describe('plugin rows at privacy level 2', () => {
  it('keep no URL, file name, host or quoted prompt words of the request in the parent or the child log', () => {
    const rows = logRowsFor(outcome(2));
    const text = JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
    expect(text).not.toContain('board-meeting');
    expect(text).not.toContain(SECRET_HOST);
    expect(text).not.toContain('acme-secretco');
    // What kind of failure it was stays readable.
    expect(rows?.children[0]?.response).toMatchObject({ error: { kind: 'invalid_value', status: 400 } });
  });

  it('keep them at level 1', () => {
    const text = JSON.stringify(logRowsFor(outcome(1)), (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
    expect(text).toContain(SECRET_HOST);
    expect(text).toContain('board-meeting');
    expect(text).toContain('acme-secretco');
  });
});

describe('generated images in the log', () => {
  it('are kept without their base64 data, which the client alone receives', () => {
    const base = outcome(1);
    const b64 = Buffer.alloc(3000, 7).toString('base64');
    const image = { type: 'image' as const, plugin: 'image-generation-generic' as const, mime_type: 'image/png', b64_json: b64, size: '1024x1024' };
    const answered = (base.ended as { result: CompletionResult }).result;
    const result = { ...answered, report: { ...answered.report, artifacts: [image] } };
    const rows = logRowsFor({ ...base, ended: { result } });
    const text = JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
    expect(text).not.toContain(b64);
    expect(rows?.parent.response).toMatchObject({
      v: 2,
      report: { artifacts: [{ type: 'image', mime_type: 'image/png', b64_json: '[not stored: 3000 bytes]' }] },
    });
    // The answer itself is untouched.
    expect(result.report.artifacts[0]?.b64_json).toBe(b64);
  });
});
