import { convert, type HtmlToTextOptions } from 'html-to-text';

/** Elements that are page furniture, not content. */
const SKIPPED = ['nav', 'header', 'footer', 'aside', 'form', 'button', 'noscript', 'svg', 'iframe', 'img', 'picture', 'video', 'audio'];

const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];

/** The whole page reduced to its main text: the first `article`, else `main`, else the body, without links' targets. */
const PAGE_OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  baseElements: { selectors: ['article', 'main', 'body'], orderBy: 'selectors', returnDomByDefault: true },
  limits: { maxBaseElements: 1 },
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    ...SKIPPED.map((selector) => ({ selector, format: 'skip' })),
    ...HEADINGS.map((selector) => ({ selector, options: { uppercase: false } })),
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
  ],
};

/** A snippet may carry markup (Brave marks matches with `<strong>`) and entities. */
const SNIPPET_OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
  ],
};

/** Whitespace that collapsing would change: a run of two, or any but a plain space. */
const COLLAPSIBLE = /\s\s|[^\S ]/;

function collapseSpaces(text: string): string {
  // Most titles and snippets have single spaces only: `replace` would copy them for nothing.
  return (COLLAPSIBLE.test(text) ? text.replace(/\s+/g, ' ') : text).trim();
}

/** Cuts text to `maxChars` at a word boundary where one is near, marking the cut. */
export function truncate(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars);
  const lastSpace = cut.lastIndexOf(' ');
  return `${lastSpace > maxChars * 0.8 ? cut.slice(0, lastSpace) : cut}…`;
}

/** One line of plain text from a snippet that may hold tags or entities. */
export function snippetText(fragment: string): string {
  if (!/[<&]/.test(fragment)) return collapseSpaces(fragment);
  return collapseSpaces(convert(fragment, SNIPPET_OPTIONS));
}

/** An HTML page's readable text: main content only, blank lines squeezed, at most `maxChars`. */
export function pageText(html: string, maxChars: number): string {
  const text = convert(html, PAGE_OPTIONS)
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return truncate(text, maxChars);
}
