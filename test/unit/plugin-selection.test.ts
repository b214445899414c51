import fc from 'fast-check';
import { PLUGIN_IDS } from '../../src/schemas/assistants';
import { isAudioFile } from '../../src/plugins/selection/audio-files';
import { lastUserText, selectPlugins, type SelectionInput } from '../../src/plugins/selection';
import type { PluginId } from '../../src/plugins/types';

const NOW = new Date('2026-11-23T12:00:00Z');

function chosen(text: string, more: Partial<SelectionInput> = {}, allowed: readonly PluginId[] = PLUGIN_IDS): string[] {
  const input: SelectionInput = { text, files: [], images: [], spaceHasFiles: false, ...more };
  return selectPlugins(input, allowed, { now: NOW })
    .map((s) => s.plugin)
    .sort();
}

describe('selectPlugins: negation', () => {
  it.each([
    "Don't search the web, just tell me from memory: who won the latest Tour de France?",
    'Without looking anything up, what is the current price of gold roughly?',
    'Ne cherche pas sur internet, dis-moi juste les dernières nouvelles que tu connais.',
    'Erklär mir ohne Internetsuche, was heute in den Nachrichten wichtig sein könnte.',
  ])('does not search the web when told not to: %s', (text) => {
    expect(chosen(text)).not.toContain('web-search');
  });

  it('reads "why don\'t you" as a suggestion, not a negation', () => {
    expect(chosen("Why don't you search the web for reviews of the new Pixel?")).toEqual(['web-search']);
  });

  it('keeps a negator for another verb from hiding a cue: "I don\'t know the latest"', () => {
    expect(chosen("I don't know the latest news from Kyiv, can you look it up?")).toEqual(['web-search']);
  });

  it('does not draw or post when told not to', () => {
    expect(chosen("Please don't generate any images, just describe a Japanese garden in words.")).toEqual([]);
    expect(chosen("Don't post anything yet, just show me three draft toots about the sale.")).toEqual([]);
  });
});

describe('selectPlugins: words with another sense', () => {
  it.each([
    'How do I resize an image in Python with Pillow?',
    'My Docker image is 2 GB, how can I make it smaller?',
    'Draw conclusions from these numbers: revenue up 10%, costs up 20%.',
    'How do I send a POST request with fetch in JavaScript?',
    'Implement binary search over a sorted array in Go.',
    'Write a SQL query that returns the latest order per customer.',
    "What's the current through a 10 ohm resistor at 5 volts?",
    'Transcribe this DNA sequence into mRNA: ATGCGT',
    'Today I feel a bit sad, can we talk?',
  ])('chooses nothing for %s', (text) => {
    expect(chosen(text, { spaceHasFiles: true })).toEqual([]);
  });

  it('does not take describing an attached photo for a request to make one', () => {
    expect(chosen('What breed is the dog in this photo?', { images: ['https://example.com/dog.jpg'] })).toEqual([]);
  });
});

describe('selectPlugins: space-search', () => {
  it('asks the Space only when it has files', () => {
    expect(chosen('What does our handbook say about remote work?', { spaceHasFiles: true })).toEqual(['space-search']);
    expect(chosen('What does our handbook say about remote work?', { spaceHasFiles: false })).toEqual([]);
  });

  it('answers to the legacy id when only that one is allowed', () => {
    expect(chosen('Summarize the travel expense policy.', { spaceHasFiles: true }, ['legacy-file-search'])).toEqual(['legacy-file-search']);
  });

  it('leaves general questions about kinds of document alone', () => {
    expect(chosen('How should a research paper be structured, generally speaking?', { spaceHasFiles: true })).toEqual([]);
  });
});

describe('selectPlugins: transcribe-audio', () => {
  it('transcribes an attached audio file whatever the text asks', () => {
    expect(chosen('What is the main argument?', { files: ['https://cdn.example.com/talk.mp3'] })).toEqual(['transcribe-audio']);
    expect(chosen('', { files: ['data:audio/ogg;base64,T2dnUwACAAAA'] })).toEqual(['transcribe-audio']);
  });

  it('does not take a document or a Space file id for audio', () => {
    expect(chosen('Summarize this report.', { files: ['report.pdf'] })).toEqual([]);
    expect(chosen('Summarize this.', { files: ['0b7d4c1e-3f0a-4b8e-9a51-6c2d7e8f9a10'] })).toEqual([]);
  });

  it.each([
    ['meeting.MP3', true],
    ['https://x.example/a/b.wav?sig=abc', true],
    ['https://x.example/f/123?format=m4a', true],
    ['data:audio/webm;base64,GkXf', true],
    ['data:video/mp4;base64,AAAA', true],
    ['data:image/png;base64,iVBO', false],
    ['https://x.example/mp3/readme.txt', false],
    ['0b7d4c1e-3f0a-4b8e-9a51-6c2d7e8f9a10', false],
  ])('isAudioFile(%s) is %s', (reference, expected) => {
    expect(isAudioFile(reference)).toBe(expected);
  });
});

describe('selectPlugins: social-post', () => {
  const post = 'Post this on Mastodon: we are hiring backend engineers!';

  it('is chosen only when allowed', () => {
    expect(chosen(post)).toEqual(['social-post']);
    expect(chosen(post, {}, ['web-search', 'space-search'])).toEqual([]);
  });

  it('leaves drafts and advice to the user', () => {
    expect(chosen('Write a tweet about our launch that I can post myself later.')).toEqual([]);
    expect(chosen("What's a good posting schedule for a small business on social media?")).toEqual([]);
  });
});

describe('selectPlugins: several plugins and the result', () => {
  it('chooses each plugin a request needs, the best first, with scores and reasons', () => {
    const selections = selectPlugins(
      { text: "Find today's top tech headline and post a one-line summary to Mastodon.", files: [], images: [], spaceHasFiles: false },
      PLUGIN_IDS,
      { now: NOW },
    );
    expect(selections.map((s) => s.plugin).sort()).toEqual(['social-post', 'web-search']);
    expect(selections[0].score).toBeGreaterThanOrEqual(selections[1].score);
    for (const s of selections) {
      expect(s.score).toBeGreaterThanOrEqual(0.5);
      expect(s.score).toBeLessThanOrEqual(1);
      expect(s.reason).toMatch(/^[a-z].+ \('.+'\)$/u);
    }
  });

  it('counts a year as recent relative to the given date', () => {
    expect(chosen('Who won the 2026 World Cup?')).toEqual(['web-search']);
    const later = selectPlugins({ text: 'Who won the 2026 World Cup?', files: [], images: [], spaceHasFiles: false }, PLUGIN_IDS, {
      now: new Date('2040-01-01T00:00:00Z'),
    });
    expect(later).toEqual([]);
  });

  it('reads German, French and Spanish cues', () => {
    expect(chosen('Zeichne ein Bild von einem Leuchtturm.')).toEqual(['image-generation-generic']);
    expect(chosen("Quel temps fait-il à Lyon aujourd'hui ?")).toEqual(['web-search']);
    expect(chosen('Publica en nuestras redes sociales que abrimos el lunes.')).toEqual(['social-post']);
  });
});

describe('lastUserText', () => {
  it("reads the last user message's text parts and skips images", () => {
    const text = lastUserText([
      { role: 'user', content: 'Search the web for the weather.' },
      { role: 'assistant', content: 'Sunny.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Thanks!' },
          { type: 'image_url', image_url: { url: 'https://x.example/a.png' } },
        ],
      },
    ]);
    expect(text).toBe('Thanks!');
    expect(lastUserText([{ role: 'system', content: 'Be brief.' }])).toBe('');
  });
});

describe('selectPlugins: any input', () => {
  it('never throws, chooses only allowed plugins, once each, with scores from 0.5 to 1', () => {
    const pluginIds = fc.subarray([...PLUGIN_IDS]);
    const text = fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 300 }), fc.constant('draw '.repeat(2000)));
    fc.assert(
      fc.property(
        fc.record({ text, files: fc.array(fc.string({ maxLength: 80 }), { maxLength: 3 }), spaceHasFiles: fc.boolean() }),
        pluginIds,
        (input, allowed) => {
          const selections = selectPlugins({ ...input, images: [] }, allowed, { now: NOW });
          expect(new Set(selections.map((s) => s.plugin)).size).toBe(selections.length);
          for (const s of selections) {
            expect(allowed).toContain(s.plugin);
            expect(s.score).toBeGreaterThanOrEqual(0.5);
            expect(s.score).toBeLessThanOrEqual(1);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
