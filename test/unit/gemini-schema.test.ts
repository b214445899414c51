import { hasProperties, toGeminiSchema } from '../../src/providers/gemini/schema';

describe('JSON Schema → Gemini Schema', () => {
  it.each([
    [
      'drops keys Gemini refuses',
      { $schema: 'x', type: 'object', additionalProperties: false, strict: true, properties: { a: { type: 'string', examples: ['x'] } } },
      { type: 'object', properties: { a: { type: 'string' } } },
    ],
    [
      'keeps the supported subset',
      { type: 'string', description: 'd', format: 'date-time', minLength: 1, maxLength: 9, pattern: '^a', title: 't' },
      { type: 'string', description: 'd', format: 'date-time', minLength: 1, maxLength: 9, pattern: '^a', title: 't' },
    ],
    ['turns a type list with null into nullable', { type: ['integer', 'null'] }, { type: 'integer', nullable: true }],
    ['turns a type list of several types into anyOf', { type: ['string', 'number'] }, { anyOf: [{ type: 'string' }, { type: 'number' }] }],
    ['turns const into a one-value enum', { type: 'string', const: 'yes' }, { type: 'string', enum: ['yes'] }],
    ['writes enum values as strings', { type: 'integer', enum: [1, 2] }, { type: 'integer', enum: ['1', '2'] }],
    [
      'recurses into items and anyOf, oneOf becoming anyOf',
      { type: 'array', items: { oneOf: [{ type: 'string', additionalProperties: 1 }, { type: 'number' }] } },
      { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
    ],
    [
      'keeps only required names that exist',
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'b'] },
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
    ],
    ['leaves out empty properties', { type: 'object', properties: {} }, { type: 'object' }],
    [
      'inlines local $refs',
      { type: 'object', properties: { u: { $ref: '#/$defs/unit', description: 'unit' } }, $defs: { unit: { type: 'string', enum: ['c', 'f'] } } },
      { type: 'object', properties: { u: { type: 'string', enum: ['c', 'f'], description: 'unit' } } },
    ],
    [
      'reads definitions as well as $defs',
      { items: { $ref: '#/definitions/n' }, type: 'array', definitions: { n: { type: 'number' } } },
      { type: 'array', items: { type: 'number' } },
    ],
    ['returns {} for what is not an object', 'string', {}],
  ])('%s', (_name, input, output) => {
    expect(toGeminiSchema(input)).toEqual(output);
  });

  it('cuts off a recursive schema instead of looping', () => {
    const tree = { $ref: '#/$defs/node', $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } } };
    expect(JSON.stringify(toGeminiSchema(tree)).length).toBeLessThan(2000);
  });

  it('tells whether any parameter is declared', () => {
    expect(hasProperties(toGeminiSchema({ type: 'object', properties: { a: { type: 'string' } } }))).toBe(true);
    expect(hasProperties(toGeminiSchema({ type: 'object' }))).toBe(false);
  });
});
