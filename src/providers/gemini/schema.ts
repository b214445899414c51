/**
 * JSON Schema (as OpenAI clients send it for tool parameters and `json_schema`) → Gemini's `Schema`,
 * a subset of OpenAPI 3.0. Gemini refuses the whole request with 400 ("Unknown name ... Cannot find
 * field") for any key outside that subset, so everything else (`additionalProperties`, `$schema`,
 * `strict`, `$id`, `examples`, `not`, `patternProperties`, `exclusiveMinimum`, ...) is dropped.
 * Local `$ref`s into `$defs`/`definitions` are inlined (Gemini has no references); `const` becomes a
 * one-value `enum`; a type list such as `["string", "null"]` becomes a type plus `nullable`.
 */
type JsonObject = Record<string, unknown>;

/** The keys Gemini's `Schema` accepts (ai.google.dev API reference, v1beta `Schema`). */
const KEPT = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'default',
  'minimum',
  'maximum',
  'propertyOrdering',
]);

/** How deep `$ref`s are followed; a recursive schema is cut off there (Gemini cannot express it). */
const MAX_DEPTH = 12;

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

interface Walk {
  defs: JsonObject;
  depth: number;
}

function resolveRef(ref: unknown, walk: Walk): JsonObject {
  const match = typeof ref === 'string' ? /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref) : null;
  const target = match?.[1] !== undefined ? walk.defs[match[1]] : undefined;
  return isObject(target) ? target : {};
}

/** `type: [a, b]` → one type (+ `nullable`), or `anyOf` when several real types remain. */
function typeFields(type: unknown): JsonObject {
  if (!Array.isArray(type)) return type === undefined ? {} : { type };
  const real = type.filter((t) => t !== 'null');
  const nullable = real.length < type.length ? { nullable: true } : {};
  if (real.length === 1) return { type: real[0], ...nullable };
  return real.length === 0 ? nullable : { anyOf: real.map((t) => ({ type: t })), ...nullable };
}

function convertProperties(properties: JsonObject, walk: Walk): JsonObject {
  const out: JsonObject = {};
  for (const [name, schema] of Object.entries(properties)) out[name] = convert(schema, walk);
  return out;
}

function convert(input: unknown, parent: Walk): JsonObject {
  if (!isObject(input) || parent.depth > MAX_DEPTH) return {};
  const walk = {
    defs: { ...parent.defs, ...(isObject(input.$defs) ? input.$defs : {}), ...(isObject(input.definitions) ? input.definitions : {}) },
    depth: parent.depth + 1,
  };
  const schema = input.$ref === undefined ? input : { ...resolveRef(input.$ref, walk), ...input, $ref: undefined };
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) if (KEPT.has(key) && key !== 'type') out[key] = value;
  Object.assign(out, typeFields(schema.type));
  if (schema.const !== undefined) out.enum = [schema.const];
  if (Array.isArray(out.enum)) out.enum = out.enum.filter((v) => v !== null).map(String);
  if (isObject(schema.properties) && Object.keys(schema.properties).length > 0) {
    const properties = convertProperties(schema.properties, walk);
    out.properties = properties;
    if (Array.isArray(schema.required)) out.required = schema.required.filter((name) => typeof name === 'string' && name in properties);
  }
  if (isObject(schema.items)) out.items = convert(schema.items, walk);
  const union = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (union) out.anyOf = union.map((option) => convert(option, walk));
  return out;
}

/** A Gemini `Schema` for a JSON Schema; `{}` when the input is not an object. */
export function toGeminiSchema(schema: unknown): JsonObject {
  return convert(schema, { defs: {}, depth: 0 });
}

/** Whether a converted schema declares any parameter (Gemini rejects an OBJECT with empty `properties`). */
export function hasProperties(schema: JsonObject): boolean {
  return isObject(schema.properties) && Object.keys(schema.properties).length > 0;
}
