import { audioFormatOf, mayBeAudioUrl, sniffAudio, uploadName } from '../../src/plugins/transcribe-audio/audio-format';
import { parseDataUrl } from '../../src/plugins/transcribe-audio/data-url';
import { toTranscriptionForm, transcriptionResponseFormat } from '../../src/plugins/transcribe-audio/request';
import { fromTranscriptionResponse, transcriptionCostUsd } from '../../src/plugins/transcribe-audio/response';
import { audioRefs, refOf } from '../../src/plugins/transcribe-audio/sources';
import { transcribeAudioSettings } from '../../src/schemas/plugin-settings';
import { m4aHeader, silentWav, taggedMp3 } from '../fixtures/audio';

describe('transcription request', () => {
  it('asks for verbose_json, except from the gpt-4o transcription models that take json only', () => {
    expect(transcriptionResponseFormat('whisper-1')).toBe('verbose_json');
    expect(transcriptionResponseFormat('whisper-large-v3')).toBe('verbose_json');
    expect(transcriptionResponseFormat('gpt-4o-transcribe')).toBe('json');
    expect(transcriptionResponseFormat('gpt-4o-mini-transcribe')).toBe('json');
  });

  it('builds the multipart fields: file with its name and type, model, format, and the language only when set', async () => {
    const bytes = silentWav();
    const audio = { bytes, name: 'a.wav', format: { mimeType: 'audio/wav', extension: 'wav' } };
    const form = toTranscriptionForm({ audio, settings: transcribeAudioSettings.parse({ language: 'de' }) });
    const file = form.get('file') as File;
    expect([file.name, file.type, Buffer.from(await file.arrayBuffer()).equals(bytes)]).toEqual(['a.wav', 'audio/wav', true]);
    expect([form.get('model'), form.get('response_format'), form.get('language')]).toEqual(['whisper-1', 'verbose_json', 'de']);
    expect(toTranscriptionForm({ audio, settings: transcribeAudioSettings.parse({}) }).has('language')).toBe(false);
  });
});

describe('fromTranscriptionResponse', () => {
  it('reads verbose_json', () => {
    const body = { task: 'transcribe', language: 'english', duration: 8.47, text: ' Hello there. ', segments: [] };
    expect(fromTranscriptionResponse(body, 'transcriptions')).toEqual({ text: 'Hello there.', language: 'english', durationSeconds: 8.47 });
  });

  it('reads json: the duration from usage in seconds when given, none with token usage or none at all', () => {
    expect(fromTranscriptionResponse({ text: 'Hi', usage: { type: 'duration', seconds: 9 } }, 'x')).toEqual({ text: 'Hi', durationSeconds: 9 });
    expect(fromTranscriptionResponse({ text: 'Hi', usage: { type: 'tokens', input_tokens: 14, output_tokens: 3, total_tokens: 17 } }, 'x')).toEqual({
      text: 'Hi',
    });
    expect(fromTranscriptionResponse({ text: 'Hi' }, 'x')).toEqual({ text: 'Hi' });
  });

  it('takes a duration sent as a numeric string', () => {
    expect(fromTranscriptionResponse({ text: 'Hi', duration: '3.5' }, 'x').durationSeconds).toBe(3.5);
  });

  it.each([[{}], [{ text: 3 }], ['Hello'], [{ text: 'x', duration: 'long' }]])('refuses %j as invalid_response', (body) => {
    expect(() => fromTranscriptionResponse(body, 'x')).toThrow(expect.objectContaining({ kind: 'invalid_response' }));
  });
});

describe('transcriptionCostUsd', () => {
  it('bills each started second at the price per minute', () => {
    expect(transcriptionCostUsd(60, 0.006)).toBeCloseTo(0.006, 12);
    expect(transcriptionCostUsd(60.01, 0.006)).toBeCloseTo((61 / 60) * 0.006, 12);
    expect(transcriptionCostUsd(0.2, 0.006)).toBeCloseTo(0.0001, 12);
    expect(transcriptionCostUsd(0, 0.006)).toBe(0);
  });
});

describe('audio formats', () => {
  it('sniffs the accepted containers from their first bytes', () => {
    const webm = Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84]), Buffer.from('webmB'), Buffer.alloc(8)]);
    const ogg = Buffer.concat([Buffer.from('OggS'), Buffer.alloc(12)]);
    const flac = Buffer.concat([Buffer.from('fLaC'), Buffer.alloc(12)]);
    const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 32]), Buffer.from('ftypisom'), Buffer.alloc(20)]);
    const frames = taggedMp3().subarray(10);
    expect([silentWav(), taggedMp3(), frames, m4aHeader(), mp4, ogg, flac, webm].map((b) => sniffAudio(b)?.extension)).toEqual([
      'wav',
      'mp3',
      'mp3',
      'm4a',
      'mp4',
      'ogg',
      'flac',
      'webm',
    ]);
  });

  it('finds no audio in other files', () => {
    const pdf = Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj');
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB', 'base64');
    const adts = Buffer.from([0xff, 0xf1, 0x50, 0x80, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect([pdf, png, adts, Buffer.from('hi')].map((b) => sniffAudio(b))).toEqual([null, null, null, null]);
  });

  it('falls back on the declared type, then the name, and ignores the rest', () => {
    const unknown = Buffer.from('not sniffable bytes');
    expect(audioFormatOf({ name: 'x', mimeType: 'audio/x-m4a', bytes: unknown })).toEqual({ mimeType: 'audio/x-m4a', extension: 'm4a' });
    expect(audioFormatOf({ name: 'call.ogg', mimeType: 'application/octet-stream', bytes: unknown })).toEqual({ mimeType: 'audio/ogg', extension: 'ogg' });
    expect(audioFormatOf({ name: 'notes.txt', mimeType: 'text/plain', bytes: unknown })).toBeNull();
  });

  it('fetches a URL only when its extension may be audio', () => {
    const may = (url: string) => mayBeAudioUrl(new URL(url));
    expect([
      may('https://a.example/x.mp3'),
      may('https://a.example/rec?id=7'),
      may('https://a.example/v.mov'),
      may('https://a.example/x.pdf'),
      may('https://a.example/p.png'),
    ]).toEqual([true, true, true, false, false]);
  });

  it("gives the upload the format's extension, which the backend reads the format from", () => {
    const wav = { mimeType: 'audio/wav', extension: 'wav' };
    expect([uploadName('memo.wav', wav), uploadName('memo', wav), uploadName('memo.bin', wav), uploadName(' ', wav)]).toEqual([
      'memo.wav',
      'memo.wav',
      'memo.bin.wav',
      'audio.wav',
    ]);
  });
});

describe('parseDataUrl', () => {
  it('reads the type and the decoded size before decoding', () => {
    const parsed = parseDataUrl(`data:audio/wav;base64,${Buffer.from('hello!!').toString('base64')}`, 'files[0]');
    expect([parsed.mimeType, parsed.decodedBytes, parsed.decode().toString()]).toEqual(['audio/wav', 7, 'hello!!']);
  });

  it('decodes percent-encoded payloads byte by byte', () => {
    const parsed = parseDataUrl('data:application/octet-stream,%FF%FBab', 'files[0]');
    expect([...parsed.decode()]).toEqual([0xff, 0xfb, 0x61, 0x62]);
  });

  it('refuses what is not a data URL or not base64, naming the field', () => {
    expect(() => parseDataUrl('data:audio/wav;base64', 'files[2]')).toThrow(expect.objectContaining({ name: 'ApiError', param: 'files[2]' }));
    expect(() => parseDataUrl('data:audio/wav;base64,***', 'files[2]')).toThrow(expect.objectContaining({ name: 'ApiError', param: 'files[2]' }));
  });
});

describe('audio sources', () => {
  it('tells URLs, data URLs and Space file ids apart', () => {
    expect(refOf('https://a.example/x.mp3', 'files[0]')).toMatchObject({ kind: 'url' });
    expect(refOf('data:audio/wav;base64,AAAA', 'files[0]')).toMatchObject({ kind: 'data' });
    expect(refOf('3F1C2A9E-6B1D-4C1E-9A51-0F6C7D2B8E10', 'files[0]')).toEqual({
      kind: 'space-file',
      fileId: '3f1c2a9e-6b1d-4c1e-9a51-0f6c7d2b8e10',
      param: 'files[0]',
    });
    expect([refOf('ftp://a.example/x.mp3', 'f'), refOf('file-abc', 'f')]).toEqual([null, null]);
  });

  it('takes every file, or the one a tool call chose, named by its place in files', () => {
    const input = { messages: [], query: '', images: [], args: null, files: ['https://a.example/1.mp3', 'nonsense', 'https://a.example/2.mp3'] };
    expect(audioRefs(input, undefined)).toMatchObject({ refs: [{ param: 'files[0]' }, { param: 'files[2]' }], unreadable: ['files[1]'] });
    expect(audioRefs(input, 'https://a.example/2.mp3')).toMatchObject({ refs: [{ param: 'files[2]' }], unreadable: [] });
    // A URL the model made up is not fetched; a Space file id it names is read from the request's data Space.
    expect(audioRefs(input, 'https://b.example/3.mp3')).toEqual({ refs: [], unreadable: [], foreign: ['file'] });
    expect(audioRefs(input, '3f1c2a9e-6b1d-4c1e-9a51-0f6c7d2b8e10')).toMatchObject({ refs: [{ kind: 'space-file', param: 'file' }], foreign: [] });
  });
});
