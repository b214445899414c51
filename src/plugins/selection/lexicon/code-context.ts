import { cue, type Cue, fragments, words } from '../cue';

/**
 * Evidence that the request is about programming, where "image", "search", "post", "latest" and
 * "current" mean something else: a Docker image, binary search, an HTTP POST, the latest row.
 * Each plugin weighs it differently, so these are builders.
 */

const CODE_TASK = words(
  '(?:write|implement|create|build|refactor|debug|fix|add|generate|code)(?: [\\p{L}\\p{N}-]+){0,4} (?:function|method|class|script|query|component|program|regex|endpoint|unit tests?|one-liner|loop|bar|api|module|handler)',
  'in (?:python|javascript|typescript|java|rust|go|c\\+\\+|c#|c|ruby|php|kotlin|swift|sql|bash|node(?:\\.js)?|react|django|css|html)',
  'with (?:pillow|opencv|matplotlib|numpy|pandas|ffmpeg|fetch|axios|curl|express|flask|requests|sharp|imagemagick)',
);

const TECH_TERMS = words(
  'python',
  'javascript',
  'typescript',
  'rust',
  'sql',
  'css',
  'html',
  'react(?:\\.js| components?| hooks?| apps?| native)',
  'django',
  'express\\.js',
  'npm',
  'git',
  'docker',
  'kubernetes',
  'bash',
  'regex',
  'array',
  'function',
  'variable',
  'json',
  'http',
  'rest apis?',
  'binary search',
  'linked list',
  'api requests?',
  'post (?:request|route|method|endpoint|body)',
  'typeerror',
  'stack trace',
  'compile',
  'elasticsearch',
  'matplotlib',
  'ffmpeg',
  'mermaid',
  'svg',
  'ascii',
  's3 bucket',
);

/** Symbols that rarely appear in prose: arrows, braces, semicolons between statements, calls. */
const CODE_SYNTAX = fragments('=>', '[{}]', '\\w\\(\\w*\\)', ';\\s*\\w+\\s*=', '\\w\\.\\w+\\(', '`', 'def \\w+\\(', '\\blet \\w+\\s*=');

/** A task to write or fix code, a technical term and code itself, each weighted for one plugin. */
export function codeCues(weights: { task: number; term: number; syntax: number }): Cue[] {
  return [
    cue(CODE_TASK, weights.task, { group: 'code-task', reason: 'is a programming task' }),
    cue(TECH_TERMS, weights.term, { group: 'code-term', reason: 'is about programming' }),
    cue(CODE_SYNTAX, weights.syntax, { group: 'code-syntax', reason: 'contains code' }),
  ];
}
