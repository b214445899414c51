import { readMediaConfig } from '../../src/config/plugins/media';
import { backendClient } from '../../src/net/backend-client';
import type { HttpClient } from '../../src/net/http-client';
import { createTranscribeAudioPlugin, type SpaceFile, type SpaceFileReader } from '../../src/plugins/transcribe-audio';
import type { PluginContext, PluginInput } from '../../src/plugins/types';
import { transcribeAudioSettings } from '../../src/schemas/plugin-settings';
import { dataUrl, m4aHeader, silentWav, taggedMp3 } from '../fixtures/audio';
import { MEDIA_SIM_KEY, startMediaSimulator, type MediaSimulator } from '../simulator/plugins/openai-media';
import { pluginContext, runPluginScenarios } from './scenarios';

/** The Space files of the tests, by Space and id: a stand-in for the database-backed reader. */
class InMemorySpaceFiles implements SpaceFileReader {
  readonly files = new Map<string, SpaceFile>();
  add(appId: string, fileId: string, file: SpaceFile): void {
    this.files.set(`${appId}/${fileId}`, file);
  }
  read(appId: string, fileId: string): Promise<SpaceFile | null> {
    return Promise.resolve(this.files.get(`${appId}/${fileId}`) ?? null);
  }
}

const WAV = silentWav();
const input = (files: string[], overrides: Partial<PluginInput> = {}): PluginInput => ({
  messages: [{ role: 'user', content: 'What is said in the recording?' }],
  query: 'What is said in the recording?',
  files,
  images: [],
  args: null,
  ...overrides,
});
const configFor = (sim: MediaSimulator, env: Record<string, string> = {}) =>
  readMediaConfig({ TRANSCRIBE_BASE_URL: sim.baseUrl, TRANSCRIBE_API_KEY: MEDIA_SIM_KEY, ...env }).transcribe;

let scenarioSim: MediaSimulator;
runPluginScenarios({
  name: 'transcribe-audio',
  start: async () => {
    scenarioSim = await startMediaSimulator();
    return { plugin: createTranscribeAudioPlugin(configFor(scenarioSim), { spaceFiles: new InMemorySpaceFiles() }), close: () => scenarioSim.close() };
  },
  script: (...faults) => {
    scenarioSim.transcriptions.reset();
    scenarioSim.transcriptions.push(...faults);
  },
  input: input([dataUrl('audio/wav', WAV)]),
  settings: transcribeAudioSettings.parse({}),
  expectOk: (output) => {
    expect(output.artifacts).toEqual([
      {
        type: 'transcript',
        plugin: 'transcribe-audio',
        text: 'Transcript of audio.wav.',
        language: 'english',
        duration_seconds: 12.5,
        source: 'files[0] (data URL)',
      },
    ]);
    // 12.5 s are billed as 13 started seconds at $0.006 a minute.
    expect(output.costUsd).toBeCloseTo((13 / 60) * 0.006, 10);
    expect(output.context).toBe('Transcript of files[0] (data URL) (english, 13 s):\nTranscript of audio.wav.');
  },
  empty: 'nothing',
});

/** Clients that record which URLs each was asked for, so a test can tell the SSRF-safe one was used. */
function recordingClients(): { calls: { backend: string[]; untrusted: string[] }; clients: Pick<PluginContext, 'backend' | 'untrusted'> } {
  const calls = { backend: [] as string[], untrusted: [] as string[] };
  const recording =
    (into: string[]): HttpClient =>
    (request) => {
      into.push(request.url);
      return backendClient(request);
    };
  return { calls, clients: { backend: recording(calls.backend), untrusted: recording(calls.untrusted) } };
}

describe('transcribe-audio: where the audio comes from, and its limits', () => {
  const spaceId = '00000000-0000-4000-8000-00000000000a';
  let sim: MediaSimulator;
  let spaceFiles: InMemorySpaceFiles;
  let calls: ReturnType<typeof recordingClients>['calls'];
  beforeAll(async () => {
    sim = await startMediaSimulator();
  });
  beforeEach(() => {
    spaceFiles = new InMemorySpaceFiles();
  });
  afterEach(() => sim.reset());
  afterAll(() => sim.close());

  const run = (files: string[], options: { env?: Record<string, string>; settings?: object; overrides?: Partial<PluginInput> } = {}) => {
    const plugin = createTranscribeAudioPlugin(configFor(sim, options.env), { spaceFiles });
    const recorded = recordingClients();
    calls = recorded.calls;
    const ctx = pluginContext(transcribeAudioSettings.parse(options.settings ?? {}), {
      signal: AbortSignal.timeout(5000),
      deadline: Date.now() + 5000,
      ...recorded.clients,
    });
    return plugin.run(input(files, options.overrides), ctx);
  };
  const uploads = () => sim.requests.filter((r) => r.path === '/v1/audio/transcriptions');

  it('fetches an http(s) URL through the SSRF-safe client, never the backend one, and uploads it with its name and type', async () => {
    const url = sim.serve('talk.mp3', { contentType: 'audio/mpeg', bytes: taggedMp3() });
    const output = await run([url], { settings: { language: 'en' } });
    expect(calls.untrusted).toEqual([url]);
    expect(calls.backend).toEqual([`${sim.baseUrl}/audio/transcriptions`]);
    expect(uploads()).toHaveLength(1);
    expect(uploads()[0]).toMatchObject({
      authorization: `Bearer ${MEDIA_SIM_KEY}`,
      fields: { model: 'whisper-1', response_format: 'verbose_json', language: 'en' },
    });
    expect(uploads()[0]?.file).toMatchObject({ name: 'talk.mp3', type: 'audio/mpeg' });
    expect(uploads()[0]?.file?.bytes.equals(taggedMp3())).toBe(true);
    expect(output.artifacts).toEqual([expect.objectContaining({ source: url, text: 'Transcript of talk.mp3.', language: 'en' })]);
  });

  it('decodes a base64 data URL and names the upload by the sniffed format', async () => {
    await run([dataUrl('application/octet-stream', WAV)]);
    expect(uploads()[0]?.file).toMatchObject({ name: 'audio.wav', type: 'audio/wav' });
    expect(uploads()[0]?.file?.bytes.equals(WAV)).toBe(true);
  });

  it("reads a Space file id from the request's data Space through the SpaceFileReader", async () => {
    const fileId = '3f1c2a9e-6b1d-4c1e-9a51-0f6c7d2b8e10';
    spaceFiles.add(spaceId, fileId, { name: 'standup', mimeType: 'audio/mp4', bytes: m4aHeader() });
    const output = await run([fileId]);
    expect(uploads()[0]?.file).toMatchObject({ name: 'standup.m4a', type: 'audio/mp4' });
    expect(output.artifacts[0]).toMatchObject({ source: `standup (Space file ${fileId})` });
  });

  it('answers 404 naming the field for a Space file id the Space does not have', async () => {
    const otherSpace = '00000000-0000-4000-8000-0000000000ff';
    const fileId = '3f1c2a9e-6b1d-4c1e-9a51-0f6c7d2b8e11';
    spaceFiles.add(otherSpace, fileId, { name: 'theirs.wav', mimeType: 'audio/wav', bytes: WAV });
    await expect(run([fileId])).rejects.toMatchObject({ name: 'ApiError', status: 404, param: 'files[0]' });
    expect(uploads()).toHaveLength(0);
  });

  it('ignores files that are not audio: by extension without fetching, by content type, by data URL type, by Space file type', async () => {
    const page = sim.serve('page', { contentType: 'text/html', bytes: Buffer.from('<html>hello</html>') });
    const textId = '3f1c2a9e-6b1d-4c1e-9a51-0f6c7d2b8e12';
    spaceFiles.add(spaceId, textId, { name: 'notes.txt', mimeType: 'text/plain', bytes: Buffer.from('notes') });
    const output = await run([`${sim.url}/files/report.pdf`, page, dataUrl('image/png', Buffer.from('png')), textId, 'file-abc123']);
    expect(calls.untrusted).toEqual([page]);
    expect(uploads()).toHaveLength(0);
    expect(output).toMatchObject({ context: null, artifacts: [], costUsd: 0 });
    expect(output.warning).toBe('transcribe-audio: files[4]: not a URL, data URL or Space file id; no audio file in the request');
  });

  it('transcribes only the file a tool call chose', async () => {
    const first = sim.serve('a.wav', { contentType: 'audio/wav', bytes: WAV });
    const second = sim.serve('b.wav', { contentType: 'audio/wav', bytes: WAV });
    const output = await run([first, second], { overrides: { args: { file: second } } });
    expect(calls.untrusted).toEqual([second]);
    expect(output.artifacts).toEqual([expect.objectContaining({ source: second })]);
  });

  it("never fetches a URL the model names that is not one of the request's files (prompt injection)", async () => {
    const mine = sim.serve('mine.wav', { contentType: 'audio/wav', bytes: WAV });
    const elsewhere = sim.serve('exfiltrate.wav?secret=the-system-prompt', { contentType: 'audio/wav', bytes: WAV });
    const output = await run([mine], { overrides: { args: { file: elsewhere } } });
    expect(calls.untrusted).toEqual([]);
    expect(uploads()).toHaveLength(0);
    expect(output.artifacts).toEqual([]);
    expect(output.warning).toContain("not one of the request's files");
  });

  it('labels each transcript with its source for the model and adds the costs', async () => {
    const url = sim.serve('a.wav', { contentType: 'audio/wav', bytes: WAV });
    sim.durationSeconds = 60;
    const output = await run([url, dataUrl('audio/wav', WAV)], { env: { TRANSCRIBE_COST_USD_PER_MINUTE: '0.01' } });
    expect(output.context).toBe(
      `Transcript of ${url} (english, 60 s):\nTranscript of a.wav.\n\nTranscript of files[1] (data URL) (english, 60 s):\nTranscript of audio.wav.`,
    );
    expect(output.costUsd).toBeCloseTo(0.02, 10);
  });

  describe('limits', () => {
    const env = { TRANSCRIBE_MAX_BYTES: String(WAV.length + 10), TRANSCRIBE_MAX_SECONDS: '600' };
    const big = silentWav(1);

    it('refuses a data URL over the byte limit (413, naming it) before any upload', async () => {
      await expect(run([dataUrl('audio/wav', WAV), dataUrl('audio/wav', big)], { env })).rejects.toMatchObject({
        name: 'ApiError',
        status: 413,
        code: 'payload_too_large',
        param: 'files[1]',
      });
      expect(uploads()).toHaveLength(0);
    });

    it('refuses a URL whose body is over the byte limit', async () => {
      const url = sim.serve('long.wav', { contentType: 'audio/wav', bytes: big });
      await expect(run([url], { env })).rejects.toMatchObject({ status: 413, param: 'files[0]' });
    });

    it('refuses a Space file over the byte limit', async () => {
      const fileId = '3f1c2a9e-6b1d-4c1e-9a51-0f6c7d2b8e13';
      spaceFiles.add(spaceId, fileId, { name: 'long.wav', mimeType: 'audio/wav', bytes: big });
      await expect(run([fileId], { env })).rejects.toMatchObject({ status: 413, param: 'files[0]' });
    });

    it('refuses audio longer than the duration limit the backend reports', async () => {
      sim.durationSeconds = 601;
      await expect(run([dataUrl('audio/wav', WAV)], { env })).rejects.toMatchObject({
        name: 'ApiError',
        status: 400,
        code: 'invalid_value',
        param: 'files[0]',
      });
    });

    it("names a URL that cannot be fetched as the caller's error", async () => {
      await expect(run([`${sim.url}/files/missing.wav`])).rejects.toMatchObject({ name: 'ApiError', code: 'invalid_value', param: 'files[0]' });
    });
  });

  it('asks gpt-4o transcription models for plain json and says the cost is unknown without a duration', async () => {
    const output = await run([dataUrl('audio/wav', WAV)], { settings: { model: 'gpt-4o-transcribe' } });
    expect(uploads()[0]?.fields).toMatchObject({ model: 'gpt-4o-transcribe', response_format: 'json' });
    expect(output.artifacts).toEqual([{ type: 'transcript', plugin: 'transcribe-audio', text: 'Transcript of audio.wav.', source: 'files[0] (data URL)' }]);
    expect(output.costUsd).toBe(0);
    expect(output.warning).toContain('files[0]: the backend did not report the duration');
  });

  it('is unavailable, and says why, without a key', () => {
    const keyless = createTranscribeAudioPlugin(readMediaConfig({ TRANSCRIBE_BASE_URL: sim.baseUrl }).transcribe, { spaceFiles });
    expect(keyless.availability()).toEqual({ available: false, reason: expect.stringContaining('TRANSCRIBE_API_KEY') });
  });
});
