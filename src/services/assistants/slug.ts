/** Longest slug, suffix included. */
export const MAX_SLUG_LENGTH = 60;
const FALLBACK_SLUG = 'assistant';

/** Letters that Unicode decomposition does not reduce to ASCII. */
const EXTRA_FOLDS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
};

const trimDashes = (text: string): string => text.replace(/^-+|-+$/g, '');

/** `"Café Crème: Bot!"` → `"cafe-creme-bot"`; lowercase ASCII letters, digits and single dashes. */
export function slugify(name: string): string {
  const folded = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[ßæœøłđðþı]/g, (letter) => EXTRA_FOLDS[letter] ?? letter);
  const slug = trimDashes(trimDashes(folded.replace(/[^a-z0-9]+/g, '-')).slice(0, MAX_SLUG_LENGTH));
  return slug === '' ? FALLBACK_SLUG : slug;
}

/** The n-th candidate for a base slug: the base itself, then `base-2`, `base-3`, ... cut to fit. */
export function slugCandidate(base: string, n: number): string {
  if (n === 1) return base;
  const suffix = `-${n}`;
  return `${trimDashes(base.slice(0, MAX_SLUG_LENGTH - suffix.length))}${suffix}`;
}

/** Every candidate starts with this, so it finds all slugs that may be taken by a name's candidates. */
export function slugFamilyPrefix(base: string): string {
  return base.slice(0, MAX_SLUG_LENGTH - 20);
}

/** The first candidate not in `taken`. */
export function firstFreeSlug(base: string, taken: ReadonlySet<string>): string {
  let n = 1;
  while (taken.has(slugCandidate(base, n))) n += 1;
  return slugCandidate(base, n);
}
