/**
 * Fits the model's answer into a network's post limit: cut on a word boundary, with an ellipsis.
 * Mastodon counts characters (we count code points, never fewer than Mastodon's count); Bluesky
 * counts graphemes (what a reader sees as one character, e.g. a flag emoji) and also caps the UTF-8
 * size of the text.
 */
export interface TextLimit {
  max: number;
  unit: 'code_points' | 'graphemes';
  /** Largest UTF-8 size, in bytes (Bluesky's record schema: 3000). */
  maxBytes?: number;
}

/** A stock Mastodon instance's limit; an instance's own (`MastodonLimits`) replaces it. */
export const MASTODON_LIMIT: TextLimit = { max: 500, unit: 'code_points' };
export const BLUESKY_LIMIT: TextLimit = { max: 300, unit: 'graphemes', maxBytes: 3000 };

const ELLIPSIS = '…';
const ELLIPSIS_BYTES = Buffer.byteLength(ELLIPSIS);
/** A word boundary further back than this share of the text is not worth the loss: cut mid-word instead. */
const MIN_KEPT_SHARE = 0.5;

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

function unitsOf(text: string, unit: TextLimit['unit']): string[] {
  return unit === 'graphemes' ? Array.from(segmenter.segment(text), (part) => part.segment) : Array.from(text);
}

/** Counts as the network counts. */
export function measure(text: string, unit: TextLimit['unit']): number {
  return unitsOf(text, unit).length;
}

/** The longest prefix of `units` that leaves room for the ellipsis, in count and in bytes. */
function prefixWithRoom(units: string[], limit: TextLimit): string[] {
  const kept: string[] = [];
  let bytes = ELLIPSIS_BYTES;
  for (const unit of units) {
    bytes += Buffer.byteLength(unit);
    if (kept.length + 1 >= limit.max || (limit.maxBytes !== undefined && bytes > limit.maxBytes)) break;
    kept.push(unit);
  }
  return kept;
}

function cutAtWord(kept: string[]): string {
  let boundary = kept.length;
  while (boundary > 0 && !/^\s+$/.test(kept[boundary - 1] ?? '')) boundary -= 1;
  const end = boundary >= kept.length * MIN_KEPT_SHARE ? boundary : kept.length;
  return kept.slice(0, end).join('').trimEnd();
}

/** The text as posted: trimmed, and when too long cut on a word boundary and ended with "…". */
export function fitToLimit(text: string, limit: TextLimit): string {
  const trimmed = text.trim();
  const units = unitsOf(trimmed, limit.unit);
  const fitsBytes = limit.maxBytes === undefined || Buffer.byteLength(trimmed) <= limit.maxBytes;
  if (units.length <= limit.max && fitsBytes) return trimmed;
  return `${cutAtWord(prefixWithRoom(units, limit))}${ELLIPSIS}`;
}
