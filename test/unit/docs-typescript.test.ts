import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The TypeScript examples of the docs compile against the packages they import (the `openai` SDK's own
 * types, strict): what a user copies works as written. Each ```ts block is one ES module.
 */

const ROOT = path.resolve(__dirname, '../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(full);
    return entry.name.endsWith('.md') ? [full] : [];
  });
}

interface Block {
  file: string;
  line: number;
  code: string;
}

function typescriptBlocks(file: string): Block[] {
  const blocks: Block[] = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== '```ts') continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]?.trim() !== '```') end++;
    blocks.push({ file: path.relative(ROOT, file), line: start + 1, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return blocks;
}

const blocks = [path.join(ROOT, 'README.md'), ...markdownFiles(path.join(ROOT, 'docs'))].flatMap(typescriptBlocks);

jest.setTimeout(120_000);

it('every ```ts block of the docs compiles', () => {
  expect(blocks.length).toBeGreaterThan(0);
  // Inside the repository, so that the blocks' imports resolve to its node_modules.
  const dir = mkdtempSync(path.join(ROOT, '.docs-ts-'));
  try {
    const files = blocks.map((block, n) => {
      const name = path.join(dir, `block-${n}.ts`);
      writeFileSync(name, `${block.code}\nexport {};\n`);
      return name;
    });
    const program = ts.createProgram(files, {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ES2022,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: ['node'],
      skipLibCheck: true,
    });
    const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const n = diagnostic.file ? files.indexOf(diagnostic.file.fileName) : -1;
      const block = blocks[n];
      const at = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line : 0;
      const where = block ? `${block.file}:${block.line + at}` : (diagnostic.file?.fileName ?? '?');
      return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
    expect(problems).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
