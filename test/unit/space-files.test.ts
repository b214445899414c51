import { readSpaceSearchConfig } from '../../src/config/plugins/space-search';
import { fuseRankings } from '../../src/plugins/space-search/rank-fusion';
import { chunkText, normaliseText } from '../../src/services/space-files/chunk-text';
import { recognise } from '../../src/services/space-files/file-types';
import { splitSentences } from '../../src/services/space-files/split-sentences';
import { makeDocx, makePdf, makeWav } from '../fixtures/space-files/make-documents';

const sentence = (i: number) => `Sentence ${i} says something about harbours and ships.`;

describe('chunkText', () => {
  it('keeps a short text whole', () => {
    expect(chunkText('  One line.\r\n\r\n\r\nAnother paragraph.  ')).toEqual(['One line.\n\nAnother paragraph.']);
  });

  it('cuts long text on sentence boundaries near the target size, each chunk starting with the end of the one before', () => {
    const text = Array.from({ length: 60 }, (_, i) => sentence(i)).join(' ');
    const chunks = chunkText(text, { targetChars: 300, overlapChars: 60 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(360);
      expect(chunk).toMatch(/^Sentence \d+ .*\.$/s);
    }
    for (let i = 1; i < chunks.length; i++) {
      const lastOfPrevious = (chunks[i - 1] as string).split(/(?<=\.) /).at(-1) as string;
      expect(chunks[i]?.startsWith(lastOfPrevious)).toBe(true);
    }
    // Every sentence is somewhere.
    for (let i = 0; i < 60; i++) expect(chunks.some((chunk) => chunk.includes(sentence(i)))).toBe(true);
  });

  it('keeps paragraph breaks and lines (CSV rows) inside a chunk', () => {
    expect(chunkText('a,b\n1,2\n3,4\n\nNext paragraph.')).toEqual(['a,b\n1,2\n3,4\n\nNext paragraph.']);
  });

  it('cuts a "word" longer than a chunk anywhere', () => {
    const chunks = chunkText('x'.repeat(2500), { targetChars: 1000, overlapChars: 100 });
    expect(chunks.map((chunk) => chunk.length)).toEqual([1000, 1000, 500]);
  });

  it('drops control characters PostgreSQL text cannot hold', () => {
    expect(normaliseText('a\u0000b\u0007c\td')).toBe('abc\td');
    expect(chunkText('\u0000\n\n')).toEqual([]);
  });
});

/** CPU time of `work`, in ms: the least of `runs` runs, so that other processes on the machine count little. */
function cpuMs(work: () => unknown, runs = 3): number {
  let least = Infinity;
  for (let i = 0; i < runs; i++) {
    const before = process.cpuUsage();
    work();
    const used = process.cpuUsage(before);
    least = Math.min(least, (used.user + used.system) / 1000);
  }
  return least;
}

describe('chunkText on hostile text', () => {
  // Intl.Segmenter took 3 s and 690 MB for 16,000 `{}` lines, and ran a 4 GB heap out for 60,000.
  it.each([
    ['`{}` lines', (n: number) => '{}\n'.repeat(n)],
    ['short sentences', (n: number) => 'Hello there. '.repeat(n)],
    ['a run of spaces', (n: number) => `${' '.repeat(3 * n)}x`],
    ['a run of full stops', (n: number) => '.'.repeat(3 * n)],
  ])('is linear in the length of %s', (_what, make) => {
    const small = make(60_000);
    const large = make(600_000);
    expect(cpuMs(() => chunkText(small))).toBeLessThan(2000);
    // Ten times the text: about ten times the time (quadratic would be a hundred); 1 ms floors the noise.
    expect(cpuMs(() => chunkText(large))).toBeLessThan(
      30 *
        Math.max(
          cpuMs(() => chunkText(small)),
          1,
        ) +
        50,
    );
  });

  it('chunks a paragraph of 500,000 lines (one unit each) without overflowing the stack', () => {
    expect(chunkText('a\n'.repeat(500_000)).length).toBeGreaterThan(400);
  });
});

describe('splitSentences', () => {
  it.each([
    ['Dr. Smith went home. He said "Stop!" Then he left.', ['Dr. ', 'Smith went home. ', 'He said "Stop!" ', 'Then he left.']],
    [
      'Prices rose 3.5% in 2023, e.g. in housing. See example.com for more... Really?! Yes.',
      ['Prices rose 3.5% in 2023, e.g. in housing. ', 'See example.com for more... ', 'Really?! ', 'Yes.'],
    ],
    ['a,b\n1,2\n3,4', ['a,b\n', '1,2\n', '3,4']],
    ['First line\nsecond line. Third (really.) Fourth', ['First line\n', 'second line. ', 'Third (really.) ', 'Fourth']],
    ['日本語の文。次の文！最後？', ['日本語の文。', '次の文！', '最後？']],
    ['He said "hi." she replied.', ['He said "hi." she replied.']],
  ])('splits %j as Unicode sentence boundaries do', (text, expected) => {
    expect(splitSentences(text)).toEqual(expected);
    expect(splitSentences(text)).toEqual([...new Intl.Segmenter('en', { granularity: 'sentence' }).segment(text)].map((s) => s.segment));
  });
});

describe('recognise', () => {
  it.each([
    ['a.txt', Buffer.from('plain'), 'text/plain', true],
    ['A.MD', Buffer.from('# title'), 'text/markdown', true],
    ['p.htm', Buffer.from('<p>x</p>'), 'text/html', true],
    ['d.csv', Buffer.from('a,b'), 'text/csv', true],
    ['d.json', Buffer.from('{}'), 'application/json', true],
    ['d.pdf', makePdf(['x']), 'application/pdf', true],
    ['d.docx', makeDocx(['x']), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', true],
    ['m.wav', makeWav(), 'audio/wav', false],
    ['m.mp3', Buffer.from('ID3\u0003\u0000'), 'audio/mpeg', false],
    ['m.ogg', Buffer.from('OggS\u0000'), 'audio/ogg', false],
    ['m.flac', Buffer.from('fLaC\u0000'), 'audio/flac', false],
    ['m.m4a', Buffer.from('\u0000\u0000\u0000\u0018ftypM4A '), 'audio/mp4', false],
    ['m.webm', Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x01]), 'audio/webm', false],
  ])('%s', (...[name, bytes, mimeType, indexed]) => {
    expect(recognise(name, bytes)).toMatchObject({ mimeType, indexed });
  });

  it.each([
    ['no extension', 'README', Buffer.from('text')],
    ['an unknown extension', 'a.exe', Buffer.from('MZ')],
    ['a PDF named as text', 'a.txt', makePdf(['x'])],
    ['text named as a PDF', 'a.pdf', Buffer.from('hello')],
    ['invalid UTF-8 named as text', 'a.csv', Buffer.from([0xc3, 0x28])],
    ['text named as audio', 'a.mp3', Buffer.from('hello')],
  ])('refuses %s', (_why, name, bytes) => {
    expect(recognise(name, bytes)).toBeNull();
  });
});

describe('fuseRankings', () => {
  const chunk = (file: string, position = 0) => ({ file_id: file, position });

  it('scores each chunk Σ 1/(60 + rank), best first', () => {
    const fused = fuseRankings([
      [chunk('a'), chunk('b'), chunk('c')],
      [chunk('c'), chunk('d')],
    ]);
    expect(fused.map((entry) => entry.file_id)).toEqual(['c', 'a', 'b', 'd']);
    expect(fused[0]?.score).toBeCloseTo(1 / 63 + 1 / 61, 12);
    expect(fused[1]?.score).toBeCloseTo(1 / 61, 12);
  });

  it('breaks ties by file, then position, so the same query gives the same sources', () => {
    expect(fuseRankings([[chunk('b', 1)], [chunk('a', 2)]]).map((e) => e.file_id)).toEqual(['a', 'b']);
  });
});

describe('readSpaceSearchConfig', () => {
  it('defaults to 20 MiB files, 512 MiB and 60 s per file ingestion, and full-text ranking only', () => {
    expect(readSpaceSearchConfig({})).toEqual({ maxFileBytes: 20 * 1024 * 1024, ingestHeapMb: 512, ingestTimeoutMs: 60_000, embeddings: null });
  });

  it("embeds through the OpenAI provider's base URL and key by default once a key is configured", () => {
    expect(readSpaceSearchConfig({ OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: 'http://openai.internal/v1' }).embeddings).toEqual({
      baseUrl: 'http://openai.internal/v1',
      apiKey: 'sk-x',
      model: 'text-embedding-3-small',
      costUsdPerMtok: 0.02,
    });
  });

  it('takes EMBEDDINGS_* over the OpenAI defaults, and EMBEDDINGS_MODEL=none turns embeddings off', () => {
    const env = {
      OPENAI_API_KEY: 'sk-x',
      EMBEDDINGS_BASE_URL: 'http://127.0.0.1:11434/v1',
      EMBEDDINGS_MODEL: 'nomic-embed-text',
      EMBEDDINGS_COST_USD_PER_MTOK: '0',
    };
    expect(readSpaceSearchConfig(env).embeddings).toEqual({
      baseUrl: 'http://127.0.0.1:11434/v1',
      apiKey: 'sk-x',
      model: 'nomic-embed-text',
      costUsdPerMtok: 0,
    });
    expect(readSpaceSearchConfig({ OPENAI_API_KEY: 'sk-x', EMBEDDINGS_MODEL: 'none' }).embeddings).toBeNull();
  });

  it('EMBEDDINGS_MODEL=test-embedding without a base URL chooses the built-in test model, free unless priced', () => {
    expect(readSpaceSearchConfig({ EMBEDDINGS_MODEL: 'test-embedding' }).embeddings).toEqual({ backend: 'test', model: 'test-embedding', costUsdPerMtok: 0 });
    expect(readSpaceSearchConfig({ EMBEDDINGS_MODEL: 'test-embedding', OPENAI_API_KEY: 'sk-x', EMBEDDINGS_COST_USD_PER_MTOK: '1' }).embeddings).toEqual({
      backend: 'test',
      model: 'test-embedding',
      costUsdPerMtok: 1,
    });
    // With a base URL it is a model of that server, whatever its name.
    expect(readSpaceSearchConfig({ EMBEDDINGS_MODEL: 'test-embedding', EMBEDDINGS_BASE_URL: 'http://127.0.0.1:3000/v1' }).embeddings).toMatchObject({
      baseUrl: 'http://127.0.0.1:3000/v1',
      model: 'test-embedding',
    });
  });

  it('names the variable of a bad value', () => {
    expect(() => readSpaceSearchConfig({ SPACE_FILE_MAX_BYTES: 'lots' })).toThrow(/SPACE_FILE_MAX_BYTES/);
    expect(() => readSpaceSearchConfig({ EMBEDDINGS_BASE_URL: 'not a url' })).toThrow(/EMBEDDINGS_BASE_URL/);
    expect(() => readSpaceSearchConfig({ SPACE_FILE_INGEST_HEAP_MB: '8' })).toThrow(/SPACE_FILE_INGEST_HEAP_MB/);
    expect(() => readSpaceSearchConfig({ SPACE_FILE_INGEST_TIMEOUT_MS: 'soon' })).toThrow(/SPACE_FILE_INGEST_TIMEOUT_MS/);
  });
});
