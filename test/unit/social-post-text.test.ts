import { linkFacets } from '../../src/plugins/social-post/bluesky-facets';
import { BLUESKY_LIMIT, fitToLimit, MASTODON_LIMIT, measure } from '../../src/plugins/social-post/text';
import { newTid, TID_PATTERN } from '../../src/plugins/social-post/tid';

describe('fitToLimit', () => {
  it('keeps a text that fits, trimmed', () => {
    expect(fitToLimit('  hello world \n', MASTODON_LIMIT)).toBe('hello world');
  });

  it('cuts on a word boundary and ends with an ellipsis', () => {
    const text = fitToLimit('alpha beta gamma delta', { max: 14, unit: 'code_points' });
    expect(text).toBe('alpha beta…');
  });

  it('cuts mid-word when the only boundary is too far back', () => {
    expect(fitToLimit('a verylongwordwithoutanyspaces', { max: 12, unit: 'code_points' })).toBe('a verylongw…');
  });

  it('counts graphemes for Bluesky: a family emoji is one', () => {
    const family = '👨‍👩‍👧';
    expect(measure(family, 'graphemes')).toBe(1);
    expect(measure(fitToLimit(`${family} `.repeat(200), BLUESKY_LIMIT), 'graphemes')).toBeLessThanOrEqual(300);
  });

  it('keeps Bluesky texts under 3000 bytes even when 300 graphemes would be more', () => {
    const family = '👨‍👩‍👧';
    const text = fitToLimit(family.repeat(300), BLUESKY_LIMIT);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(3000);
    expect(text.endsWith('…')).toBe(true);
  });
});

describe('linkFacets', () => {
  it('gives byte ranges of URLs, without sentence punctuation, skipping a URL cut by the ellipsis', () => {
    const text = 'Café: see https://example.org/x. And https://cut.example/abc…';
    const facets = linkFacets(text);
    expect(facets).toHaveLength(1);
    const start = Buffer.byteLength('Café: see ');
    expect(facets[0]?.index).toEqual({ byteStart: start, byteEnd: start + 'https://example.org/x'.length });
  });
});

describe('newTid', () => {
  it('is 13 base32-sortable characters and sorts by time', () => {
    const a = newTid(1_700_000_000_000);
    const b = newTid(1_700_000_001_000);
    expect(a).toMatch(TID_PATTERN);
    expect(a < b).toBe(true);
  });
});
