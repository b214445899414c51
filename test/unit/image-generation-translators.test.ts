import { toImagesRequest } from '../../src/plugins/image-generation-generic/request';
import { fromImagesResponse } from '../../src/plugins/image-generation-generic/response';
import { imageGenerationSettings } from '../../src/schemas/plugin-settings';

const settings = (overrides: object = {}) => imageGenerationSettings.parse(overrides);
const PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const JPEG_B64 = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]).toString('base64');

describe('toImagesRequest', () => {
  it('leaves response_format out for GPT image models, which refuse it', () => {
    expect(toImagesRequest({ prompt: 'a cat', settings: settings() })).toEqual({ model: 'gpt-image-1', prompt: 'a cat', n: 1, size: '1024x1024' });
    expect(toImagesRequest({ prompt: 'a cat', settings: settings({ model: 'gpt-image-1-mini' }) })).not.toHaveProperty('response_format');
  });

  it("sends response_format to other models, and the tool call's size over the Space's", () => {
    expect(toImagesRequest({ prompt: 'a cat', settings: settings({ model: 'dall-e-3', response_format: 'url', n: 1 }), size: '1792x1024' })).toEqual({
      model: 'dall-e-3',
      prompt: 'a cat',
      n: 1,
      size: '1792x1024',
      response_format: 'url',
    });
  });
});

describe('fromImagesResponse', () => {
  const options = { provider: 'images', requestedSize: '1024x1024' };

  it('reads a GPT image answer: base64, output_format, size and usage', () => {
    const body = {
      created: 1,
      data: [{ b64_json: 'AAAA' }],
      output_format: 'webp',
      size: '1536x1024',
      usage: { input_tokens: 10, output_tokens: 272, total_tokens: 282 },
    };
    expect(fromImagesResponse(body, options)).toEqual({
      images: [{ type: 'image', plugin: 'image-generation-generic', mime_type: 'image/webp', b64_json: 'AAAA', size: '1536x1024' }],
      usage: { input_tokens: 10, output_tokens: 272, total_tokens: 282 },
    });
  });

  it('reads a DALL·E answer: URLs and the revised prompt, with the requested size', () => {
    const body = { created: 1, data: [{ url: 'https://cdn.example/img/abc.jpg?sig=1', revised_prompt: 'A tabby cat' }] };
    expect(fromImagesResponse(body, options)).toEqual({
      images: [
        {
          type: 'image',
          plugin: 'image-generation-generic',
          mime_type: 'image/jpeg',
          url: 'https://cdn.example/img/abc.jpg?sig=1',
          size: '1024x1024',
          revised_prompt: 'A tabby cat',
        },
      ],
    });
  });

  it('tells the type from the bytes when the backend does not say, and leaves the size out when `auto` was asked', () => {
    const { images } = fromImagesResponse({ data: [{ b64_json: PNG_B64 }, { b64_json: JPEG_B64 }] }, { provider: 'images', requestedSize: 'auto' });
    expect(images.map((image) => image.mime_type)).toEqual(['image/png', 'image/jpeg']);
    expect(images[0]).not.toHaveProperty('size');
  });

  it.each([
    ['no data', { created: 1 }],
    ['empty data', { created: 1, data: [] }],
    ['entries without an image', { created: 1, data: [{ revised_prompt: 'x' }] }],
    ['not an object', [1, 2]],
    ['a wrong type', { data: [{ url: 7 }] }],
  ])('refuses an answer with %s as invalid_response', (_, body) => {
    expect(() => fromImagesResponse(body, options)).toThrow(expect.objectContaining({ name: 'UpstreamError', kind: 'invalid_response', retryable: false }));
  });
});
