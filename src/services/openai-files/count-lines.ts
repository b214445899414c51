import { createReadStream } from 'node:fs';

const NEWLINE = 0x0a;
/** Space, tab, carriage return: a line of only these is blank. */
const BLANK = new Set([0x20, 0x09, 0x0d]);

/** Whether bytes [start, end) hold anything but blanks; stops at the first that does (a JSONL line's `{`). */
function hasContent(chunk: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) if (!BLANK.has(chunk[i] as number)) return true;
  return false;
}

/**
 * Non-empty lines of a file (a last line without a newline counts), read as a stream. Newlines are found
 * with indexOf and each line is looked at only up to its first character, so a 200 MB file costs about
 * one step per line rather than per byte.
 */
export async function countLines(path: string): Promise<number> {
  let lines = 0;
  let lineHasContent = false;
  for await (const chunk of createReadStream(path)) {
    const bytes = chunk as Buffer;
    for (let start = 0; ;) {
      const newline = bytes.indexOf(NEWLINE, start);
      const end = newline === -1 ? bytes.length : newline;
      if (!lineHasContent) lineHasContent = hasContent(bytes, start, end);
      if (newline === -1) break;
      if (lineHasContent) lines += 1;
      lineHasContent = false;
      start = newline + 1;
    }
  }
  return lineHasContent ? lines + 1 : lines;
}
