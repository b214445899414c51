import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { OpenApiDocument, OperationObject, ParameterObject } from '../../src/http/openapi/openapi-types';
import {
  deepValue,
  hostileNumber,
  hostileString,
  hostileValue,
  malformedJsonText,
  RawJson,
  serializeJson,
  STORAGE_BREAKING_NUMBERS,
  STORAGE_BREAKING_STRINGS,
  storageBreakingNumber,
  storageBreakingString,
  type FuzzJson,
} from './hostile-values';
import { valueOf, type SchemaNode, type SchemaValueOptions } from './schema-values';

/**
 * Requests as a client could send them to any server: no supertest, no app. The same generators feed the
 * in-process fuzz test and a fault suite that sends them over the network.
 */
export interface FuzzRequest {
  /** Upper case. */
  method: string;
  /** Path and query, percent-encoded as they go on the wire (garbage escapes included). */
  path: string;
  /** Never `Authorization`: the caller adds the key it tests with. */
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface FuzzTarget {
  operationId: string;
  method: string;
  /** The OpenAPI path, e.g. `/v1/apps/{app_id}`. */
  path: string;
  requests: fc.Arbitrary<FuzzRequest>;
}

export interface MalformedRequestOptions {
  /** Real ids to put in each path parameter, e.g. `{ app_id: [own, anotherOrganizations] }`. */
  pathIds: Readonly<Record<string, readonly string[]>>;
  /** Real ids for uuid fields of bodies and queries. */
  uuids?: readonly string[];
  /** Values for string fields named so, e.g. `{ model: ['test-echo'] }`, so valid requests go through. */
  stringsByField?: Readonly<Record<string, readonly string[]>>;
  /** Include bodies just above this size (a 413 each); leave out to skip them. */
  bodyLimitBytes?: number;
  /**
   * Known-valid bodies by operationId, used besides the schema's own values (and broken like them): a
   * schema cannot say everything (a user message needs content), and valid requests must get through.
   */
  examples?: Readonly<Record<string, readonly FuzzJson[]>>;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Path segments that are no id: bad percent-encoding, NUL, dot segments, 10 KB, a UTF-8-encoded lone surrogate. */
const BAD_SEGMENTS = [
  '%C0%AF',
  '%ff',
  '%ff%fe',
  '%00',
  '00000000-0000-4000-8000-000000000000%00',
  '%2e%2e',
  '.',
  'not-a-uuid',
  '%ED%A0%80',
  '%E2%80%AE',
  '%',
  '%%',
  '%zz',
  '%E0%A4%A',
  'x'.repeat(10_240),
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF',
];

/** Query values as they go on the wire: numbers out of range, bad escapes, NUL, 10 KB. */
const BAD_QUERY_VALUES = [
  '%ff',
  '%',
  '%00',
  '%C0%AF',
  '2147483648',
  '-1',
  '0',
  '1e308',
  '-0',
  '1.5',
  'NaN',
  'Infinity',
  '0x10',
  '',
  'true',
  'x'.repeat(10_240),
];

/** encodeURIComponent refuses lone surrogates; their UTF-8-looking bytes are sent instead. */
function encodeLoosely(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80';
  }
}

/**
 * Node's HTTP parser refuses a request line over 16 KB with a bare 431 before any application sees it;
 * encoded strings stay under that.
 */
const MAX_ENCODED_LENGTH = 12_288;
const encodedHostileString = hostileString.map(encodeLoosely).filter((text) => text.length <= MAX_ENCODED_LENGTH);

function pathSegment(ids: readonly string[]): fc.Arbitrary<string> {
  const bad = fc.oneof(fc.constantFrom(...BAD_SEGMENTS), encodedHostileString);
  const real = ids.length ? [{ arbitrary: fc.constantFrom(...ids), weight: 5 }] : [];
  return fc.oneof(...real, { arbitrary: fc.uuid(), weight: 1 }, { arbitrary: bad, weight: 3 });
}

function queryValue(parameter: ParameterObject, options: SchemaValueOptions): fc.Arbitrary<string> {
  const valid = valueOf(parameter.schema as SchemaNode, { depth: 0, field: parameter.name, options })
    .map((value) => encodeLoosely(typeof value === 'string' ? value : serializeJson(value)))
    .filter((text) => text.length <= MAX_ENCODED_LENGTH);
  const bad = fc.oneof(fc.constantFrom(...BAD_QUERY_VALUES), encodedHostileString);
  return fc.oneof({ arbitrary: valid, weight: 3 }, { arbitrary: bad, weight: 1 });
}

/** `?a=1&b=%ff&a=2`: declared parameters valid or not, sometimes repeated, sometimes an unknown one. */
function queryString(parameters: ParameterObject[], options: SchemaValueOptions): fc.Arbitrary<string> {
  const absent = fc.constant<string[]>([]);
  const pairs = parameters.map((parameter) =>
    fc.oneof(
      { arbitrary: absent, weight: 4 },
      { arbitrary: queryValue(parameter, options).map((value) => [`${parameter.name}=${value}`]), weight: 4 },
      // Now and then twice, which Express reads as an array.
      {
        arbitrary: fc
          .array(queryValue(parameter, options), { minLength: 2, maxLength: 2 })
          .map((values) => values.map((value) => `${parameter.name}=${value}`)),
        weight: 1,
      },
    ),
  );
  const unknown = fc.oneof(
    { arbitrary: absent, weight: 3 },
    { arbitrary: encodedHostileString.map((value) => [`${value.slice(0, 100)}=${value}`]), weight: 1 },
  );
  return fc.tuple(...pairs, unknown).map((groups) => {
    const all = groups.flat();
    return all.length ? `?${all.join('&')}` : '';
  });
}

function pathOf(operationPath: string, segments: Record<string, string>): string {
  return operationPath.replace(/\{([^}]+)\}/g, (_whole, name: string) => segments[name] ?? '');
}

/** Counts the nodes of a (shallow, generated) JSON tree in pre-order. */
function nodeCount(value: FuzzJson): number {
  if (Array.isArray(value)) return 1 + value.reduce<number>((sum, child) => sum + nodeCount(child), 0);
  if (value !== null && typeof value === 'object' && !(value instanceof RawJson)) {
    return 1 + Object.values(value).reduce<number>((sum, child) => sum + nodeCount(child), 0);
  }
  return 1;
}

/** A copy of `root` with its `index`-th node (pre-order) replaced by `rewrite(node)`. */
function rewriteNode(root: FuzzJson, index: number, rewrite: (node: FuzzJson) => FuzzJson): FuzzJson {
  let counter = 0;
  const visit = (node: FuzzJson): FuzzJson => {
    const mine = counter;
    counter += 1;
    if (mine === index) return rewrite(node);
    if (Array.isArray(node)) return node.map(visit);
    if (node !== null && typeof node === 'object' && !(node instanceof RawJson)) {
      return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, visit(child)]));
    }
    return node;
  };
  return visit(root);
}

interface Mutation {
  at: number;
  action: 'replace' | 'drop' | 'add';
  key: string;
  value: FuzzJson;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  action: fc.constantFrom<Mutation['action']>('replace', 'replace', 'drop', 'add'),
  key: fc.oneof(hostileString, fc.constantFrom('\u0000', 'a\u0000', 'unknown_field')),
  value: hostileValue,
});

function applyMutation(root: FuzzJson, { at, action, key, value }: Mutation): FuzzJson {
  return rewriteNode(root, at % nodeCount(root), (node) => {
    if (action === 'replace' || node === null || typeof node !== 'object' || node instanceof RawJson) return value;
    if (Array.isArray(node)) return action === 'drop' ? node.slice(1) : [...node, value];
    const entries = Object.entries(node);
    if (action === 'drop') return Object.fromEntries(entries.slice(1));
    return Object.fromEntries([...entries, [key, value]]);
  });
}

/** The nodes of `root` for which `matches` holds, in pre-order; the tree is shallow, so recursion is fine. */
function indexesWhere(root: FuzzJson, matches: (node: FuzzJson) => boolean): number[] {
  const found: number[] = [];
  let counter = 0;
  const visit = (node: FuzzJson): void => {
    if (matches(node)) found.push(counter);
    counter += 1;
    if (Array.isArray(node)) node.forEach(visit);
    else if (node !== null && typeof node === 'object' && !(node instanceof RawJson)) Object.values(node).forEach(visit);
  };
  visit(root);
  return found;
}

/**
 * A valid body with one string (or number) swapped for a hostile one of the same type: such a body gets
 * past validation and reaches the services and the database with its NUL, lone surrogate or 2^31.
 */
function withOneHostileLeaf(valid: fc.Arbitrary<FuzzJson>): fc.Arbitrary<FuzzJson> {
  const text = fc.oneof({ arbitrary: storageBreakingString, weight: 3 }, { arbitrary: hostileString, weight: 1 });
  const number = fc.oneof({ arbitrary: storageBreakingNumber, weight: 3 }, { arbitrary: hostileNumber, weight: 1 });
  return fc.tuple(valid, fc.nat(), text, number).map(([value, pick, badText, badNumber]) => {
    const leaves = indexesWhere(value, (node) => typeof node === 'string' || typeof node === 'number');
    if (leaves.length === 0) return value;
    return rewriteNode(value, leaves[pick % leaves.length] as number, (node) => (typeof node === 'string' ? badText : badNumber));
  });
}

/**
 * Every copy of `example` with one of its leaves replaced by one storage-breaking value of the leaf's type:
 * each field of each example meets each such value once, which random sampling cannot promise.
 */
export function everyLeafBroken(example: FuzzJson): FuzzJson[] {
  const breakEach = (kind: 'string' | 'number', values: readonly FuzzJson[]) =>
    indexesWhere(example, (node) => typeof node === kind).flatMap((leaf) => values.map((value) => rewriteNode(example, leaf, () => value)));
  return [...breakEach('string', STORAGE_BREAKING_STRINGS), ...breakEach('number', STORAGE_BREAKING_NUMBERS)];
}

interface Body {
  contentType: string;
  text: string;
}

/** Valid bodies, valid ones with one to three fields broken, malformed JSON, deep and huge ones. */
function bodyText(schema: SchemaNode | undefined, options: ValueOptions, examples: readonly FuzzJson[]): fc.Arbitrary<string> {
  const generated = schema ? valueOf(schema, { depth: 0, field: '', options }) : fc.constant<FuzzJson>({});
  const valid = examples.length ? fc.oneof({ arbitrary: fc.constantFrom(...examples), weight: 2 }, { arbitrary: generated, weight: 1 }) : generated;
  const mutated = fc.tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([value, mutations]) => mutations.reduce(applyMutation, value));
  const variants: fc.WeightedArbitrary<string>[] = [
    { arbitrary: valid.map(serializeJson), weight: 8 },
    { arbitrary: mutated.map(serializeJson), weight: 8 },
    { arbitrary: withOneHostileLeaf(valid).map(serializeJson), weight: 8 },
    { arbitrary: malformedJsonText, weight: 2 },
    { arbitrary: deepValue.map(serializeJson), weight: 2 },
  ];
  if (options.bodyLimitBytes) {
    const huge = `{"x":"${'a'.repeat(options.bodyLimitBytes + 1)}"}`;
    variants.push({ arbitrary: fc.constant(huge), weight: 1 });
  }
  return fc.oneof(...variants);
}

const contentType: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 24 },
  {
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/vnd.api+json',
      'application/json;;;',
      'application/octet-stream',
      '*/*',
    ),
    weight: 2,
  },
);

/** Content-Encoding: none, a real gzip of the text, or bytes that do not inflate. */
function encoded(body: Body): fc.Arbitrary<{ headers: Record<string, string>; body: string | Buffer }> {
  const plain = { headers: { 'Content-Type': body.contentType }, body: body.text };
  return fc.oneof(
    { arbitrary: fc.constant(plain), weight: 24 },
    {
      arbitrary: fc.constantFrom(
        { headers: { 'Content-Type': body.contentType, 'Content-Encoding': 'gzip' }, body: gzipSync(body.text) },
        { headers: { 'Content-Type': body.contentType, 'Content-Encoding': 'gzip' }, body: Buffer.from(body.text) },
        { headers: { 'Content-Type': body.contentType, 'Content-Encoding': 'br' }, body: Buffer.from('not brotli') },
        { headers: { 'Content-Type': body.contentType, 'Content-Encoding': 'compress' }, body: Buffer.from(body.text) },
      ),
      weight: 1,
    },
  );
}

type ValueOptions = SchemaValueOptions & { bodyLimitBytes?: number };

interface Operation {
  path: string;
  method: string;
  operation: OperationObject;
}

function operationRequests({ path, method, operation }: Operation, given: MalformedRequestOptions, options: ValueOptions): fc.Arbitrary<FuzzRequest> {
  const parameters = operation.parameters ?? [];
  const segments: Record<string, fc.Arbitrary<string>> = {};
  for (const parameter of parameters.filter((p) => p.in === 'path')) segments[parameter.name] = pathSegment(given.pathIds[parameter.name] ?? []);
  const examples = given.examples?.[operation.operationId] ?? [];
  const query = queryString(
    parameters.filter((p) => p.in === 'query'),
    options,
  );
  const schema = operation.requestBody?.content['application/json']?.schema as SchemaNode | undefined;
  // Routes without a body get one now and then: it must be refused or ignored, never crash.
  const noBody = fc.constant(undefined);
  const body = schema
    ? fc.oneof({ arbitrary: bodyText(schema, options, examples), weight: 12 }, { arbitrary: noBody, weight: 1 })
    : fc.oneof({ arbitrary: noBody, weight: 6 }, { arbitrary: bodyText(schema, options, examples), weight: 1 });
  const chosenMethod = fc.oneof({ arbitrary: fc.constant(method.toUpperCase()), weight: 24 }, { arbitrary: fc.constantFrom(...METHODS), weight: 1 });
  return fc
    .record({ segments: fc.record(segments), query, method: chosenMethod, body, type: contentType })
    .chain(({ segments: chosen, query: search, method: verb, body: text, type }) => {
      const base = { method: verb, path: `${pathOf(path, chosen)}${search}` };
      if (text === undefined) return fc.constant<FuzzRequest>({ ...base, headers: {} });
      return encoded({ contentType: type, text }).map((sent) => ({ ...base, ...sent }));
    });
}

/** Every operation of the document with its arbitrary of hostile requests. */
export function malformedRequests(document: OpenApiDocument, options: MalformedRequestOptions): FuzzTarget[] {
  const valueOptions: ValueOptions = {
    resolve: (ref) => {
      const schema = document.components.schemas[ref.replace('#/components/schemas/', '')];
      if (!schema) throw new Error(`unresolved ${ref}`);
      return schema as SchemaNode;
    },
    uuids: options.uuids ?? [],
    stringsByField: options.stringsByField,
    bodyLimitBytes: options.bodyLimitBytes,
  };
  const targets: FuzzTarget[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item) as [string, OperationObject][]) {
      targets.push({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path,
        requests: operationRequests({ path, method, operation }, options, valueOptions),
      });
    }
  }
  return targets;
}
