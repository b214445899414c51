import fc from 'fast-check';
import type { FuzzJson } from './hostile-values';

/** The JSON Schema keywords the OpenAPI document uses (zod's output), as far as generating values needs them. */
export interface SchemaNode {
  $ref?: string;
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  properties?: Record<string, SchemaNode>;
  required?: string[];
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

export interface SchemaValueOptions {
  /** `#/components/schemas/X` → X's schema. */
  resolve(ref: string): SchemaNode;
  /** Real ids to use for uuid fields (so that requests reach the services), besides random ones. */
  uuids: readonly string[];
  /** Values for string fields named so, e.g. `model: ['test-echo']`. */
  stringsByField?: Readonly<Record<string, readonly string[]>>;
}

const MAX_DEPTH = 8;

function stringOf(schema: SchemaNode, field: string, options: SchemaValueOptions): fc.Arbitrary<FuzzJson> {
  if (schema.format === 'uuid') {
    return options.uuids.length ? fc.oneof({ arbitrary: fc.constantFrom(...options.uuids), weight: 3 }, fc.uuid()) : fc.uuid();
  }
  if (schema.format === 'date-time') {
    return fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString());
  }
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
  const named = options.stringsByField?.[field];
  const minLength = schema.minLength ?? 0;
  const plain = fc.string({ minLength, maxLength: Math.max(minLength, Math.min(schema.maxLength ?? 24, 24)) });
  return named?.length ? fc.oneof({ arbitrary: fc.constantFrom(...named), weight: 3 }, plain) : plain;
}

function numberOf(schema: SchemaNode, integer: boolean): fc.Arbitrary<FuzzJson> {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + (integer ? 1 : 1e-9) : -1000);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - (integer ? 1 : 1e-9) : 1000);
  // Real values stay small: a valid request should look like a real one.
  const top = Math.min(max, Math.max(min, 0) + 1000);
  if (integer) return fc.integer({ min, max: top });
  return fc.double({ min, max: top, noNaN: true, noDefaultInfinity: true });
}

function objectOf(schema: SchemaNode, depth: number, options: SchemaValueOptions): fc.Arbitrary<FuzzJson> {
  const properties = schema.properties ?? {};
  const names = Object.keys(properties);
  if (names.length === 0) {
    const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : {};
    return fc.dictionary(fc.string({ maxLength: 12 }), valueOf(extra, { depth: depth + 1, field: '', options }), { maxKeys: 3 });
  }
  const model: Record<string, fc.Arbitrary<FuzzJson>> = {};
  for (const name of names) model[name] = valueOf(properties[name] as SchemaNode, { depth: depth + 1, field: name, options });
  const required = (schema.required ?? []).filter((name) => names.includes(name));
  const optional = names.filter((name) => !required.includes(name));
  // At most two optional fields: each one more is one more chance to be refused, and valid requests must get through.
  return fc
    .subarray(optional, { maxLength: Math.min(2, optional.length) })
    .chain((chosen) =>
      fc.record(Object.fromEntries([...required, ...chosen].map((name) => [name, model[name] as fc.Arbitrary<FuzzJson>]))),
    ) as fc.Arbitrary<FuzzJson>;
}

function ofType(type: string, schema: SchemaNode, at: { depth: number; field: string; options: SchemaValueOptions }): fc.Arbitrary<FuzzJson> {
  switch (type) {
    case 'string':
      return stringOf(schema, at.field, at.options);
    case 'integer':
      return numberOf(schema, true);
    case 'number':
      return numberOf(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valueOf(schema.items ?? {}, { ...at, depth: at.depth + 1 }), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3)),
      });
    default:
      return objectOf(schema, at.depth, at.options);
  }
}

/** Values that a schema accepts, most of the time (refinements it cannot express aside). */
export function valueOf(schema: SchemaNode, at: { depth: number; field: string; options: SchemaValueOptions }): fc.Arbitrary<FuzzJson> {
  if (at.depth > MAX_DEPTH) return fc.constant(null);
  if (schema.$ref) return valueOf(at.options.resolve(schema.$ref), at);
  if (schema.const !== undefined) return fc.constant(schema.const as FuzzJson);
  if (schema.enum) return fc.constantFrom(...(schema.enum as FuzzJson[]));
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices) return fc.oneof(...choices.map((choice) => valueOf(choice, at)));
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => ofType(type, schema, at)));
  if (schema.type) return ofType(schema.type, schema, at);
  if (schema.properties) return objectOf(schema, at.depth, at.options);
  return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<FuzzJson>;
}
