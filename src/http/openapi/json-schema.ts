import { z } from 'zod';

export type JsonSchema = z.core.JSONSchema.BaseSchema;
/** Requests are described by what a schema accepts (`input`), responses by what it produces (`output`). */
export type SchemaIo = 'input' | 'output';

export const COMPONENT_SCHEMAS = '#/components/schemas/';
const LOCAL_DEFS = '#/$defs/';
/** The name zod gives a schema it has to extract without an `.meta({ id })`, e.g. for recursion. */
const ANONYMOUS_DEF = /^__schema(\d+)$/;
/** Formats that say all there is to say; zod's long regex beside them only makes the docs unreadable. */
const SELF_EXPLAINING_FORMATS = new Set(['uuid', 'date-time', 'date', 'time', 'duration']);

interface PendingRef {
  node: JsonSchema;
  io: SchemaIo;
  name: string;
}

function tidy({ zodSchema, jsonSchema }: { zodSchema: z.core.$ZodTypes; jsonSchema: JsonSchema }): void {
  // zod closes a plain `z.object` on output; responses may gain fields, and clients should ignore the
  // ones they do not know. Strict objects (request bodies) stay closed: unknown fields are rejected.
  if (zodSchema._zod.def.type === 'object' && zodSchema._zod.def.catchall === undefined && jsonSchema.additionalProperties === false) {
    delete jsonSchema.additionalProperties;
  }
  if (typeof jsonSchema.format === 'string' && SELF_EXPLAINING_FORMATS.has(jsonSchema.format)) delete jsonSchema.pattern;
  // `.int()` adds the safe-integer range, which is true of every JSON integer we read.
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
}

/** Calls `visit` on every object in `value` that holds a string `$ref`. */
function eachRef(value: unknown, visit: (node: JsonSchema & { $ref: string }) => void): void {
  if (Array.isArray(value)) {
    value.forEach((item) => eachRef(item, visit));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const node = value as JsonSchema;
  if (typeof node.$ref === 'string') visit(node as JsonSchema & { $ref: string });
  Object.values(node).forEach((child) => eachRef(child, visit));
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Converts the zod schemas of one OpenAPI document to JSON Schema 2020-12 (the dialect of OpenAPI 3.1).
 * Schemas registered with `.meta({ id })` become shared `components.schemas` entries referenced by
 * `$ref`. A schema that reads differently as a request than as a response (defaults make fields
 * optional on input, for one) keeps its id for the response and is named `<id>Input` for requests.
 * References are written by `finish()`, once every schema of the document has been seen.
 */
export class SchemaCollector {
  private readonly defs: Record<SchemaIo, Map<string, JsonSchema>> = { input: new Map(), output: new Map() };
  private readonly refs: PendingRef[] = [];
  private finished = false;

  /** `hint` names the schema when zod has to extract it without an id (a recursive schema). */
  convert(schema: z.ZodType, io: SchemaIo, hint: string): JsonSchema {
    if (this.finished) throw new Error('SchemaCollector.convert called after finish()');
    const generated = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', override: tidy });
    // A plain copy: drops zod's non-enumerable helpers and the `$schema` keyword, which OpenAPI sets once.
    const { $schema: _dialect, $defs: rawDefs = {}, ...root } = JSON.parse(JSON.stringify(generated)) as JsonSchema;
    // zod's names for schemas it extracts without an id are unique only within one conversion.
    const nameOf = (def: string): string => {
      const anonymous = ANONYMOUS_DEF.exec(def);
      return anonymous ? `${hint}_${anonymous[1]}` : def;
    };
    const defs = new Map(Object.entries(rawDefs).map(([name, def]) => [nameOf(name), def]));
    let refersToRoot = false;
    eachRef([root, ...defs.values()], (node) => {
      if (node.$ref === '#') {
        refersToRoot = true;
        node.$ref = `${LOCAL_DEFS}${hint}`;
      } else if (node.$ref.startsWith(LOCAL_DEFS)) {
        node.$ref = `${LOCAL_DEFS}${nameOf(node.$ref.slice(LOCAL_DEFS.length))}`;
      }
    });
    // A recursive root without an id refers to itself as `#`, which inside an OpenAPI document is the
    // document itself; it becomes a named component instead.
    if (refersToRoot) defs.set(hint, root);
    const top: JsonSchema = refersToRoot ? { $ref: `${LOCAL_DEFS}${hint}` } : root;
    defs.forEach((def, name) => this.addDef(name, def, io));
    this.track(top, io);
    return top;
  }

  /** The properties of an object schema, e.g. to turn path or query schemas into parameters. */
  objectShape(schema: z.ZodType, hint: string): { properties: Record<string, JsonSchema>; required: string[] } {
    let converted = this.convert(schema, 'input', hint);
    if (typeof converted.$ref === 'string' && converted.$ref.startsWith(LOCAL_DEFS)) {
      converted = this.defs.input.get(converted.$ref.slice(LOCAL_DEFS.length)) ?? converted;
    }
    const properties = (converted.properties ?? {}) as Record<string, JsonSchema>;
    return { properties, required: converted.required ?? [] };
  }

  /** Writes every `$ref` and returns `components.schemas`; the collector takes no schema after this. */
  finish(extra: Record<string, JsonSchema> = {}): Record<string, JsonSchema> {
    this.finished = true;
    const split = new Set(
      [...this.defs.input.keys()].filter((name) => {
        const output = this.defs.output.get(name);
        return output !== undefined && !sameJson(output, this.defs.input.get(name));
      }),
    );
    const componentName = (io: SchemaIo, name: string) => (io === 'input' && split.has(name) ? `${name}Input` : name);
    const components: Record<string, JsonSchema> = {};
    const put = (name: string, schema: JsonSchema) => {
      if (components[name] && !sameJson(components[name], schema)) throw new Error(`Two different schemas are named '${name}' in the OpenAPI document`);
      components[name] = schema;
    };
    for (const io of ['output', 'input'] as const) {
      for (const [name, schema] of this.defs[io]) put(componentName(io, name), schema);
    }
    for (const [name, schema] of Object.entries(extra)) put(name, schema);
    for (const { node, io, name } of this.refs) node.$ref = `${COMPONENT_SCHEMAS}${componentName(io, name)}`;
    return Object.fromEntries(
      Object.keys(components)
        .sort()
        .map((name) => [name, components[name] as JsonSchema]),
    );
  }

  private addDef(name: string, def: JsonSchema, io: SchemaIo): void {
    const known = this.defs[io].get(name);
    if (known) {
      if (!sameJson(known, def)) throw new Error(`Two different schemas are registered with id '${name}'`);
      return;
    }
    this.defs[io].set(name, def);
    this.track(def, io);
  }

  private track(schema: JsonSchema, io: SchemaIo): void {
    eachRef(schema, (node) => {
      if (node.$ref.startsWith(LOCAL_DEFS)) this.refs.push({ node, io, name: node.$ref.slice(LOCAL_DEFS.length) });
    });
  }
}
