/**
 * A value that a JSON Schema accepts, built deterministically from a seed text: what the test model
 * answers for tool arguments and `json_schema` JSON mode. It covers simple schemas (types, `required`
 * properties, `enum`, `const`, bounds, common formats, local `$ref`s, `anyOf`/`oneOf`, arrays with
 * `minItems`); a `pattern` or a combination it cannot satisfy gives a value of the right type only.
 */
type Schema = Record<string, unknown>;

/** Nesting followed at most; deeper (or recursive) schemas get `null`. */
const MAX_DEPTH = 8;

/** Fixed values for the string formats clients use most. */
const FORMAT_VALUES: Record<string, string> = {
  'date-time': '1970-01-01T00:00:00Z',
  date: '1970-01-01',
  time: '00:00:00Z',
  email: 'test@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-0000-0000-000000000000',
};

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);
const numberOr = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

interface Build {
  seed: string;
  root: Schema;
  depth: number;
}

/** `#` (the root), `#/$defs/Name` or `#/definitions/Name`; anything else is not followed. */
function resolveRef(ref: string, root: Schema): Schema | undefined {
  if (ref === '#') return root;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  const defs = match ? root[match[1] as string] : undefined;
  const found = isSchema(defs)
    ? defs[
        decodeURIComponent(match?.[2] ?? '')
          .replace(/~1/g, '/')
          .replace(/~0/g, '~')
      ]
    : undefined;
  return isSchema(found) ? found : undefined;
}

function typeOf(schema: Schema): string | undefined {
  const { type } = schema;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return (type.find((t) => t !== 'null') ?? type[0]) as string | undefined;
  if (isSchema(schema.properties) || Array.isArray(schema.required)) return 'object';
  if (schema.items !== undefined || schema.prefixItems !== undefined) return 'array';
  return undefined;
}

function stringValue(schema: Schema, seed: string): string {
  const format = typeof schema.format === 'string' ? FORMAT_VALUES[schema.format] : undefined;
  const min = numberOr(schema.minLength) ?? 0;
  const max = numberOr(schema.maxLength);
  const text = (format ?? seed).padEnd(min, '.');
  return max === undefined ? text : text.slice(0, Math.max(min, max));
}

function numberValue(schema: Schema, integer: boolean): number {
  const min = numberOr(schema.minimum);
  const exclusiveMin = numberOr(schema.exclusiveMinimum);
  const max = numberOr(schema.maximum) ?? numberOr(schema.exclusiveMaximum);
  let value = min ?? (exclusiveMin !== undefined ? exclusiveMin + (integer ? 1 : 0.5) : max !== undefined && max < 0 ? max : 0);
  if (exclusiveMin !== undefined && value <= exclusiveMin) value = exclusiveMin + (integer ? 1 : 0.5);
  return integer ? Math.ceil(value) : value;
}

function arrayValue(schema: Schema, build: Build): unknown[] {
  const count = Math.min(numberOr(schema.minItems) ?? 0, 16);
  const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : null;
  if (tuple) return tuple.slice(0, Math.max(count, tuple.length)).map((item) => valueOf(item, build));
  return Array.from({ length: count }, () => valueOf(schema.items ?? {}, build));
}

function objectValue(schema: Schema, build: Build): Record<string, unknown> {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((key): key is string => typeof key === 'string') : [];
  return Object.fromEntries(required.map((key) => [key, valueOf(properties[key] ?? {}, build)]));
}

function valueOf(given: unknown, parent: Build): unknown {
  const build = { ...parent, depth: parent.depth + 1 };
  if (build.depth > MAX_DEPTH) return null;
  // `true` (and `{}`) accept anything: the seed will do.
  if (!isSchema(given)) return given === true ? build.seed : null;
  const schema = typeof given.$ref === 'string' ? (resolveRef(given.$ref, build.root) ?? {}) : given;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const branches = [schema.anyOf, schema.oneOf, schema.allOf].find((list) => Array.isArray(list) && list.length > 0) as unknown[] | undefined;
  if (branches && typeOf(schema) === undefined) return valueOf(branches[0], build);
  switch (typeOf(schema)) {
    case 'object':
      return objectValue(schema, build);
    case 'array':
      return arrayValue(schema, build);
    case 'integer':
      return numberValue(schema, true);
    case 'number':
      return numberValue(schema, false);
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return stringValue(schema, build.seed);
  }
}

/**
 * The value for `schema`: strings are the seed (cut to `maxLength`, padded to `minLength`), numbers
 * their lower bound or 0, booleans false, arrays `minItems` long, objects their `required` properties.
 */
export function valueForSchema(schema: unknown, seed: string): unknown {
  return valueOf(schema, { seed, root: isSchema(schema) ? schema : {}, depth: 0 });
}
