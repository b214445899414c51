import { createReadStream } from 'node:fs';

const NEWLINE = 0x0a;

/** Non-empty lines of a file (a last line without a newline counts), read as a stream. */
export async function countLines(path: string): Promise<number> {
  let lines = 0;
  let lineHasContent = false;
  for await (const chunk of createReadStream(path)) {
    for (const byte of chunk as Buffer) {
      if (byte === NEWLINE) {
        if (lineHasContent) lines += 1;
        lineHasContent = false;
      } else if (byte !== 0x0d && byte !== 0x20 && byte !== 0x09) {
        lineHasContent = true;
      }
    }
  }
  return lineHasContent ? lines + 1 : lines;
}
