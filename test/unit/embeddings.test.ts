import { privacyPolicyOf } from '../../src/domain/privacy-policy';
import { chooseEmbeddingModel, type EmbeddingModelChoice } from '../../src/embeddings/embedding-model-choice';
import { embedWithRetries } from '../../src/embeddings/embedding-attempts';
import { ApiError } from '../../src/errors/api-error';
import { base64Vector, openAiEmbeddingList } from '../../src/http/formats/openai-embeddings';
import { createLogger } from '../../src/logging/logger';
import { AttemptsExhausted } from '../../src/pipeline/attempt-runner';
import { embeddingResultOf, embeddingsBody } from '../../src/providers/openai-compatible/embeddings';
import { OPENAI_COMPATIBLE_VENDORS } from '../../src/providers/openai-compatible/vendors';
import { UpstreamError } from '../../src/errors/upstream-error';
import type { Provider } from '../../src/providers/types';
import { planModels } from '../../src/pipeline/model-plan';
import type { ProviderBinding } from '../../src/providers/registry';
import { profileRequest } from '../../src/routing/request-profile';
import { learnedQuality } from '../../src/routing/scorer';
import { autoToolsSettings } from '../../src/schemas/plugin-settings';
import { preparedCompletion } from '../helpers/prepared-completion';
import { routable } from '../helpers/routable-model';
import { shippedRouter } from '../helpers/shipped-router';

function vendor(id: string) {
  const found = OPENAI_COMPATIBLE_VENDORS.find((v) => v.id === id);
  if (!found) throw new Error(`no vendor ${id}`);
  return found;
}

describe('embeddingsBody', () => {
  it('asks for floats and passes dimensions and user', () => {
    expect(embeddingsBody(vendor('openai'), { model: 'text-embedding-3-small', inputs: ['a'], dimensions: 8, user: 'u' })).toEqual({
      model: 'text-embedding-3-small',
      input: ['a'],
      encoding_format: 'float',
      dimensions: 8,
      user: 'u',
    });
  });

  it('leaves out the fields a vendor refuses (Mistral: user)', () => {
    expect(embeddingsBody(vendor('mistral'), { model: 'mistral-embed', inputs: [[1, 2]], user: 'u' })).toEqual({
      model: 'mistral-embed',
      input: [[1, 2]],
      encoding_format: 'float',
    });
  });
});

describe('embeddingResultOf', () => {
  it('orders the vectors by index and reads the usage', () => {
    const raw = {
      object: 'list',
      data: [
        { index: 1, embedding: [0, 1] },
        { index: 0, embedding: [1, 0] },
      ],
      usage: { prompt_tokens: 4, total_tokens: 4 },
    };
    expect(embeddingResultOf('openai', raw, 2)).toEqual({
      vectors: [
        [1, 0],
        [0, 1],
      ],
      promptTokens: 4,
    });
  });

  it('takes total_tokens when prompt_tokens is absent, and 0 without usage', () => {
    expect(embeddingResultOf('ollama', { data: [{ index: 0, embedding: [1] }], usage: { total_tokens: 3 } }, 1).promptTokens).toBe(3);
    expect(embeddingResultOf('ollama', { data: [{ index: 0, embedding: [1] }] }, 1).promptTokens).toBe(0);
  });

  it.each([
    ['not a list', { nope: true }, 1, /not an embeddings list/],
    ['a vector holding a string', { data: [{ index: 0, embedding: [1, '2'] }] }, 1, /not an embeddings list/],
    ['an empty vector', { data: [{ index: 0, embedding: [] }] }, 1, /not an embeddings list/],
    ['a vector that is not an array', { data: [{ index: 0, embedding: 'AAAA' }] }, 1, /not an embeddings list/],
    ['too few vectors', { data: [{ index: 0, embedding: [1] }] }, 2, /1 vectors for 2 inputs/],
    [
      'a repeated index',
      {
        data: [
          { index: 0, embedding: [1] },
          { index: 0, embedding: [1] },
        ],
      },
      2,
      /2 vectors for 2 inputs/,
    ],
    [
      'vectors of two lengths',
      {
        data: [
          { index: 0, embedding: [1] },
          { index: 1, embedding: [1, 2] },
        ],
      },
      2,
      /one dimension/,
    ],
  ])('refuses %s as an invalid response', (...[, raw, count, message]) => {
    const thrown = (() => {
      try {
        embeddingResultOf('openai', raw, count);
        return null;
      } catch (err) {
        return err;
      }
    })();
    expect(thrown).toBeInstanceOf(UpstreamError);
    expect(thrown).toMatchObject({ kind: 'invalid_response', message: expect.stringMatching(message) });
  });
});

describe("OpenAI's embeddings list", () => {
  it('encodes base64 as little-endian float32', () => {
    const encoded = base64Vector([1, -0.5, 0.25]);
    const bytes = Buffer.from(encoded, 'base64');
    expect([0, 1, 2].map((i) => bytes.readFloatLE(i * 4))).toEqual([1, -0.5, 0.25]);
  });

  it('names the catalog model and counts usage as prompt tokens only', () => {
    const list = openAiEmbeddingList({ vectors: [[0.5], [1]], promptTokens: 7 }, { model: 'text-embedding-3-small', encoding: 'float' });
    expect(list).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [0.5] },
        { object: 'embedding', index: 1, embedding: [1] },
      ],
      model: 'text-embedding-3-small',
      usage: { prompt_tokens: 7, total_tokens: 7 },
    });
  });
});

describe('chooseEmbeddingModel', () => {
  const small = routable({ id: 's', model: 'small', promptTokenCost: 2e-8 });
  const large = routable({ id: 'l', model: 'large', promptTokenCost: 1.3e-7 });
  const eu = routable({ id: 'e', model: 'eu', provider: 'mistral', promptTokenCost: 1e-7, isGdpr: true });
  const chat = routable({ id: 'c', model: 'chatty' });
  const choice = (overrides: Partial<EmbeddingModelChoice> = {}): EmbeddingModelChoice => ({
    space: { models: [chat], embeddingModels: [large, small, eu] },
    requested: undefined,
    autoModelName: 'switchyard',
    privacy: privacyPolicyOf(1),
    canEmbed: () => true,
    modelExists: async () => false,
    now: new Date('2026-11-24T00:00:00Z'),
    ...overrides,
  });
  const refusal = async (c: EmbeddingModelChoice) => {
    const err = await chooseEmbeddingModel(c).catch((e: unknown) => e);
    if (!(err instanceof ApiError)) throw new Error('expected an ApiError');
    return { status: err.status, param: err.param, message: err.message };
  };

  it('picks the cheapest active model when none or the automatic model is named', async () => {
    expect((await chooseEmbeddingModel(choice())).model).toBe('small');
    expect((await chooseEmbeddingModel(choice({ requested: 'switchyard' }))).model).toBe('small');
  });

  it('passes over models it cannot use: no provider, privacy level 3 without GDPR, deprecated while others remain', async () => {
    expect((await chooseEmbeddingModel(choice({ canEmbed: (m) => m.model !== 'small' }))).model).toBe('eu');
    expect((await chooseEmbeddingModel(choice({ privacy: privacyPolicyOf(3) }))).model).toBe('eu');
    const deprecated = routable({ ...small, deprecatedOn: new Date('2026-01-01T00:00:00Z') });
    expect((await chooseEmbeddingModel(choice({ space: { models: [], embeddingModels: [deprecated, large] } }))).model).toBe('large');
  });

  it('answers with the named model, and refuses the rest naming model', async () => {
    expect((await chooseEmbeddingModel(choice({ requested: 'large' }))).model).toBe('large');
    expect(await refusal(choice({ requested: 'chatty' }))).toMatchObject({ status: 400, param: 'model', message: expect.stringMatching(/chat model/) });
    expect(await refusal(choice({ requested: 'off', modelExists: async () => true }))).toMatchObject({
      status: 400,
      param: 'model',
      message: expect.stringMatching(/not active/),
    });
    expect(await refusal(choice({ requested: 'nowhere' }))).toMatchObject({ status: 404, param: 'model' });
    expect(await refusal(choice({ requested: 'large', privacy: privacyPolicyOf(3) }))).toMatchObject({
      status: 400,
      param: 'model',
      message: expect.stringMatching(/privacy level 3/),
    });
    expect(await refusal(choice({ space: { models: [chat], embeddingModels: [] } }))).toMatchObject({
      status: 400,
      param: 'model',
      message: expect.stringMatching(/none is active/),
    });
  });
});

describe('embedWithRetries', () => {
  const model = routable({ model: 'small', namespace: 'text-embedding-3-small' });
  const failing = (errors: UpstreamError[]): Provider => ({
    id: 'openai',
    chat: () => Promise.reject(new Error('unused')),
    chatStream: () => {
      throw new Error('unused');
    },
    embed: async () => {
      const error = errors.shift();
      if (error) throw error;
      return { vectors: [[1]], promptTokens: 2 };
    },
  });
  const options = (provider: Provider, maxRetries = 2) => ({
    model,
    binding: { provider, apiKey: 'k', baseUrl: 'http://upstream' },
    request: { model: 'text-embedding-3-small', inputs: ['a'] },
    maxRetries,
    callTimeoutMs: 1000,
    deadline: Date.now() + 60_000,
    signal: new AbortController().signal,
    logger: createLogger('silent'),
    sleep: async () => undefined,
  });
  const error = (kind: 'server_error' | 'bad_request' | 'timeout', status?: number) => new UpstreamError({ kind, provider: 'openai', message: kind, status });

  it('retries the same model on retryable failures and records each call', async () => {
    const { result, records } = await embedWithRetries(options(failing([error('server_error', 503), error('server_error', 500)])));
    expect(result.promptTokens).toBe(2);
    expect(records.map((r) => [r.retry, r.statusCode])).toEqual([
      [0, 503],
      [1, 500],
      [2, 200],
    ]);
  });

  it('stops at once on a refusal or a timeout, and after max retries', async () => {
    for (const [errors, calls] of [
      [[error('bad_request', 400)], 1],
      [[error('timeout')], 1],
      [[error('server_error', 500), error('server_error', 500)], 2],
    ] as const) {
      const err = await embedWithRetries(options(failing([...errors]), 1)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AttemptsExhausted);
      expect((err as AttemptsExhausted).records).toHaveLength(calls);
    }
  });
});

describe('a chat request naming an embedding model', () => {
  it('is refused with 400 naming model, pointing at POST /v1/embeddings', async () => {
    const router = shippedRouter();
    const prepared = preparedCompletion({ messages: [{ role: 'user', content: 'hi' }] });
    prepared.requestedModel = 'text-embedding-3-small';
    const embedder = routable({ id: 'e', model: 'text-embedding-3-small' });
    const plan = planModels({
      prepared,
      space: {
        id: 'space',
        orgId: 'org',
        isActive: true,
        rateLimit: 0,
        isSandbox: false,
        dataSpaceId: 'space',
        weights: { cost: 0, latency: 0, quality: 1 },
        policies: { ...prepared.policies, privacy_level: 1 },
        settings: { assistant_id: null, assistant_version_id: null, instructions: null, max_tokens: null, temperature: null },
        autoTools: autoToolsSettings.parse({}),
        hasFailoverChain: false,
        models: [routable({ id: 'c', model: 'chatty' })],
        embeddingModels: [embedder],
        failoverChain: [],
        benchmark: null,
        embeddingBenchmark: null,
      },
      profile: profileRequest({ ...prepared.chat, model: '' }, router),
      registry: { resolve: () => ({}) as ProviderBinding },
      scoring: { weights: prepared.weights, quality: learnedQuality(router), expectedLatency: () => 800 },
      routerVersion: router.version,
      learning: null,
      now: new Date('2026-11-24T00:00:00Z'),
      modelExists: async () => true,
    });
    await expect(plan).rejects.toMatchObject({ status: 400, param: 'model', message: expect.stringMatching(/embedding model.*\/v1\/embeddings/) });
  });
});
