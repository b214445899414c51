import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import { marked, type Token } from 'marked';

/**
 * Fails on a dead relative link in the repository's Markdown: a link (or image) to a file or folder that
 * does not exist, to a heading a Markdown file does not have, or to anything outside the repository.
 * Links to the web are not fetched. `npm run lint` runs it; run alone: `npx tsx scripts/check-doc-links.ts`.
 */
const ROOT = path.resolve(__dirname, '..');
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', 'bench-build', 'coverage', 'generated']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : markdownFiles(full);
    return entry.name.endsWith('.md') ? [full] : [];
  });
}

interface Parsed {
  links: string[];
  anchors: Set<string>;
}

const parsedFiles = new Map<string, Parsed>();

function parse(file: string): Parsed {
  const known = parsedFiles.get(file);
  if (known) return known;
  const slugger = new GithubSlugger();
  const parsed: Parsed = { links: [], anchors: new Set() };
  const tokens = marked.lexer(readFileSync(file, 'utf8'));
  marked.walkTokens(tokens, (token: Token) => {
    if (token.type === 'link' || token.type === 'image') parsed.links.push(token.href);
    if (token.type === 'heading') parsed.anchors.add(slugger.slug(token.text.replace(/`/g, '')));
    if (token.type === 'html' || token.type === 'tag')
      for (const match of token.raw.matchAll(/\b(?:id|name)="([^"]+)"/g)) if (match[1]) parsed.anchors.add(match[1]);
  });
  parsedFiles.set(file, parsed);
  return parsed;
}

/** Why the link is dead, or null when it is fine (or not a relative link). */
function problemOf(file: string, href: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return null;
  const [target = '', anchor] = href.split('#', 2);
  const resolved = target === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(target));
  if (resolved !== ROOT && !resolved.startsWith(ROOT + path.sep)) return 'points outside the repository';
  if (!existsSync(resolved)) return 'no such file or folder';
  if (anchor && resolved.endsWith('.md') && statSync(resolved).isFile() && !parse(resolved).anchors.has(anchor)) return `no heading #${anchor} there`;
  return null;
}

const dead = markdownFiles(ROOT).flatMap((file) =>
  parse(file)
    .links.map((href) => ({ href, problem: problemOf(file, href) }))
    .filter((link) => link.problem !== null)
    .map(({ href, problem }) => `${path.relative(ROOT, file)}: (${href}) ${problem}`),
);
if (dead.length > 0) {
  process.stderr.write(`Dead links in the Markdown files:\n${dead.map((line) => `  ${line}`).join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`Markdown links: ${parsedFiles.size} files, every relative link resolves.\n`);
