import { Worker } from 'node:worker_threads';

/** Longest a PDF may take to read, in ms: a hostile or huge file must not hold the ingestion worker. */
const PDF_TIMEOUT_MS = 60_000;
/** Heap a PDF may use while it is read, in MiB. */
const PDF_HEAP_MB = 512;

/**
 * Runs in a worker thread. unpdf (Mozilla's PDF.js, packaged for servers) loads PDF.js with a dynamic
 * `import()`, which a CommonJS host cannot always serve (Jest's module sandbox cannot); a thread is a
 * plain Node context where it works. It also keeps parsing, which is CPU-bound, off the event loop
 * that renews the queue's job locks, and lets a stuck parse be killed.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { extractText, getDocumentProxy } = require(workerData.modulePath);
// verbosity 0: PDF.js's warnings about damaged files would go to the process's stdout.
getDocumentProxy(new Uint8Array(workerData.bytes), { verbosity: 0 })
  .then((pdf) => extractText(pdf, { mergePages: true }))
  .then(
  (result) => parentPort.postMessage({ text: result.text }),
  (err) => parentPort.postMessage({ error: String((err && err.message) || err) }),
);
`;

type ThreadReply = { text: string } | { error: string };

/** The text of a PDF's pages, in order; rejects with the reason when it cannot be read. */
export function pdfText(bytes: Buffer): Promise<string> {
  const worker = new Worker(THREAD_SOURCE, {
    eval: true,
    workerData: { modulePath: require.resolve('unpdf'), bytes },
    resourceLimits: { maxOldGenerationSizeMb: PDF_HEAP_MB },
  });
  const reading = new Promise<string>((resolve, reject) => {
    setTimeout(() => reject(new Error(`reading the PDF took longer than ${PDF_TIMEOUT_MS / 1000} s`)), PDF_TIMEOUT_MS).unref();
    worker.once('message', (reply: ThreadReply) => ('text' in reply ? resolve(reply.text) : reject(new Error(`the PDF could not be read: ${reply.error}`))));
    worker.once('error', (err) => reject(new Error(`the PDF could not be read: ${err.message}`)));
    worker.once('exit', (code) => reject(new Error(`the PDF reader stopped (exit code ${code})`)));
  });
  // Whatever the outcome, the thread is done with: a timed-out one is killed.
  return reading.finally(() => worker.terminate());
}
