import { extractText, getDocumentProxy } from 'unpdf';

/**
 * The text of a PDF's pages, in order; rejects with the reason when it cannot be read. Called only
 * inside the file-chunks process (see file-chunks-process.ts), which bounds its memory and time: unpdf
 * (Mozilla's PDF.js, packaged for servers) loads PDF.js with a dynamic `import()`, which Jest's module
 * sandbox cannot serve, and that process is a plain Node context where it works.
 */
export async function pdfText(bytes: Buffer): Promise<string> {
  try {
    // verbosity 0: PDF.js's warnings about damaged files would go to the process's stdout.
    const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
    return (await extractText(pdf, { mergePages: true })).text;
  } catch (err) {
    throw new Error(`the PDF could not be read: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}
