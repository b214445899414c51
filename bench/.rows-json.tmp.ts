import { rowsJson } from '../src/pipeline/log-batcher';
const word = 'a'.repeat(900 * 1024);
const row = { id: 'x', prompt: `[rel:t] ${word}`, payload: { messages: [{ role: 'user', content: `[rel:t] ${word}` }] }, response: { choices: [{ message: { content: 'Echo: ' + word } }] }, response_text: 'Echo: ' + word, timestamp: BigInt(Date.now()) };
for (let k = 0; k < 3; k++) {
  const t = performance.now();
  const text = rowsJson([row as never]);
  const t2 = performance.now();
  const plain = JSON.stringify([{ ...row, timestamp: 1 }]);
  const t3 = performance.now();
  console.log('rowsJson', (t2 - t).toFixed(1), 'ms; plain stringify', (t3 - t2).toFixed(1), 'ms', text.length, plain.length);
}
