/**
 * Bluesky does not find links in post text itself: a link is clickable only when the record carries a
 * `facets` entry with its UTF-8 byte range. Optional in the protocol, cheap to do for plain URLs.
 */
export interface LinkFacet {
  index: { byteStart: number; byteEnd: number };
  features: [{ $type: 'app.bsky.richtext.facet#link'; uri: string }];
}

const URL_PATTERN = /https?:\/\/[^\s<>"]+/g;
/** Sentence punctuation after a URL belongs to the sentence. */
const TRAILING = /[.,;:!?)\]'’”]+$/;

export function linkFacets(text: string): LinkFacet[] {
  const facets: LinkFacet[] = [];
  for (const match of text.matchAll(URL_PATTERN)) {
    const uri = match[0].replace(TRAILING, '');
    // A URL cut short by the ellipsis would link somewhere else: leave it as text.
    if (uri.endsWith('…')) continue;
    const byteStart = Buffer.byteLength(text.slice(0, match.index));
    facets.push({ index: { byteStart, byteEnd: byteStart + Buffer.byteLength(uri) }, features: [{ $type: 'app.bsky.richtext.facet#link', uri }] });
  }
  return facets;
}
