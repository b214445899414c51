import { z } from 'zod';
import { SchemaCollector } from '../../src/http/openapi/json-schema';

// Ids are unique per test file run: zod's global registry is shared by every schema of the process.
const Policy = z.object({ level: z.number().int().default(1), name: z.string() }).meta({ id: 'TestPolicy' });
const Owner = z.object({ id: z.uuid(), at: z.iso.datetime({ offset: true }) }).meta({ id: 'TestOwner', description: 'Who owns it.' });

describe('SchemaCollector', () => {
  it('turns schemas with an id into components referenced by $ref', () => {
    const schemas = new SchemaCollector();
    const root = schemas.convert(z.object({ owner: Owner, owners: z.array(Owner) }), 'output', 'thing');
    const components = schemas.finish();
    expect(root).toMatchObject({
      type: 'object',
      properties: { owner: { $ref: '#/components/schemas/TestOwner' }, owners: { type: 'array', items: { $ref: '#/components/schemas/TestOwner' } } },
    });
    expect(root).not.toHaveProperty('$schema');
    expect(root).not.toHaveProperty('$defs');
    expect(components.TestOwner).toEqual({
      type: 'object',
      description: 'Who owns it.',
      properties: { id: { type: 'string', format: 'uuid' }, at: { type: 'string', format: 'date-time' } },
      required: ['id', 'at'],
    });
  });

  it('answers a $ref for a top-level schema with an id', () => {
    const schemas = new SchemaCollector();
    const root = schemas.convert(Owner, 'output', 'owner');
    expect(Object.keys(schemas.finish())).toEqual(['TestOwner']);
    expect(root).toEqual({ $ref: '#/components/schemas/TestOwner' });
  });

  it('names the request variant <id>Input when input and output differ', () => {
    const schemas = new SchemaCollector();
    const request = schemas.convert(Policy, 'input', 'request');
    const response = schemas.convert(Policy, 'output', 'response');
    const components = schemas.finish();
    expect(request).toEqual({ $ref: '#/components/schemas/TestPolicyInput' });
    expect(response).toEqual({ $ref: '#/components/schemas/TestPolicy' });
    expect(components.TestPolicyInput?.required).toEqual(['name']);
    expect(components.TestPolicy?.required).toEqual(['level', 'name']);
  });

  it('keeps one component when input and output read the same', () => {
    const schemas = new SchemaCollector();
    schemas.convert(z.object({ a: Owner.optional() }), 'input', 'a');
    schemas.convert(Owner, 'output', 'b');
    const components = schemas.finish();
    expect(Object.keys(components)).toEqual(['TestOwner']);
  });

  it('names recursive schemas without an id after the hint, so they resolve inside the document', () => {
    const Node: z.ZodType = z.object({
      name: z.string(),
      get children() {
        return z.array(Node);
      },
    });
    const schemas = new SchemaCollector();
    const root = schemas.convert(Node, 'output', 'getTreeResponse');
    const inner = schemas.convert(z.object({ tree: Node }), 'output', 'listTrees');
    const components = schemas.finish();
    expect(root).toEqual({ $ref: '#/components/schemas/getTreeResponse' });
    expect(components.getTreeResponse).toMatchObject({ properties: { children: { items: { $ref: '#/components/schemas/getTreeResponse' } } } });
    const innerRef = (inner.properties as Record<string, { $ref: string }>).tree.$ref;
    expect(innerRef).toMatch(/^#\/components\/schemas\/listTrees_\d+$/);
    expect(components[innerRef.split('/').pop() as string]).toBeDefined();
  });

  it('keeps strict objects closed and leaves plain objects open to new fields', () => {
    const schemas = new SchemaCollector();
    const strict = schemas.convert(z.strictObject({ a: z.string() }), 'input', 'strict');
    const plain = schemas.convert(z.object({ a: z.string() }), 'output', 'plain');
    expect(strict.additionalProperties).toBe(false);
    expect(plain).not.toHaveProperty('additionalProperties');
  });

  it('drops the noise zod adds next to formats and integers', () => {
    const schemas = new SchemaCollector();
    const root = schemas.convert(z.object({ n: z.number().int(), small: z.number().int().min(1).max(5) }), 'output', 'n');
    expect(root.properties).toEqual({ n: { type: 'integer' }, small: { type: 'integer', minimum: 1, maximum: 5 } });
  });

  it('fails loudly when two different schemas claim the same id', () => {
    const a = z.object({ a: z.string() }).meta({ id: 'TestTwin' });
    const b = z.object({ b: z.string() }).meta({ id: 'TestTwin' });
    const schemas = new SchemaCollector();
    schemas.convert(a, 'output', 'a');
    expect(() => schemas.convert(b, 'output', 'b')).toThrow("Two different schemas are registered with id 'TestTwin'");
  });

  it('returns object properties for parameters, resolving an object with an id', () => {
    const schemas = new SchemaCollector();
    const shape = schemas.objectShape(z.object({ q: z.string().describe('Search text.'), page: z.number().optional() }).meta({ id: 'TestQuery' }), 'search');
    expect(shape.required).toEqual(['q']);
    expect(shape.properties.q).toEqual({ type: 'string', description: 'Search text.' });
  });

  it('takes no schema after finish()', () => {
    const schemas = new SchemaCollector();
    schemas.finish();
    expect(() => schemas.convert(z.string(), 'input', 'x')).toThrow('after finish');
  });
});
