import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { batchLine, chatBody, sdkUpload, waitForBatch } from '../helpers/batch-fixtures';
import { testBatchConfig } from '../helpers/batch-config';
import { setModels, simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { startS3Simulator, type S3Simulator } from '../simulator/s3';
import { startSimulator, type Simulator } from '../simulator/server';

/** The whole way (upload, batch, output, delete) with `FILE_STORAGE=s3` against the S3 simulator. */

let sim: Simulator;
let s3: S3Simulator;
let h: CompletionsHarness;
let server: Server;
let client: OpenAI;

beforeAll(async () => {
  sim = await startSimulator();
  s3 = await startS3Simulator();
  const fileStore = {
    kind: 's3' as const,
    bucket: s3.bucket,
    endpoint: s3.endpoint,
    region: 'eu-west-1',
    accessKeyId: 'k',
    secretAccessKey: 's',
    forcePathStyle: true,
    prefix: 'switchyard/',
  };
  h = startCompletionsHarness({ providers: simulatedProviders(sim), batches: testBatchConfig({ fileStore }) });
  server = await new Promise<Server>((resolve) => {
    const listening = h.app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const tenant = await h.tenant();
  await setModels(h.app, tenant, { 'gpt-4.1-mini': true });
  client = new OpenAI({ apiKey: tenant.api_key, baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
  await s3.close();
  await sim.close();
});

it('keeps input and output bytes in the bucket and removes them on delete', async () => {
  const input = await sdkUpload(client, [batchLine('one', chatBody('gpt-4.1-mini', 'Hello S3'))]);
  const keys = () => [...s3.objects.keys()];
  expect(keys()).toEqual([expect.stringMatching(new RegExp(`^switchyard/[0-9a-f-]{36}/${input}$`))]);
  const batch = await client.batches.create({ input_file_id: input, endpoint: '/v1/chat/completions', completion_window: '24h' });
  const done = await waitForBatch(() => client.batches.retrieve(batch.id));
  expect(done.status).toBe('completed');
  const output = JSON.parse((await (await client.files.content(done.output_file_id as string)).text()).trim()) as {
    response: { body: { choices: { message: { content: string } }[] } };
  };
  expect(output.response.body.choices[0]?.message.content).toBe('Echo: Hello S3');
  expect(keys()).toHaveLength(2);
  await client.files.delete(input);
  await client.files.delete(done.output_file_id as string);
  expect(keys()).toEqual([]);
});
