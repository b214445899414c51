import fc from 'fast-check';

/**
 * A JSON token written as is, for what JSON.stringify cannot produce: `-0`, `1e400` (Infinity once
 * parsed), `1.0`, a 20-digit integer.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A value of the JSON tree a generator builds: plain JSON, or RawJson tokens anywhere in it. */
export type FuzzJson = null | boolean | number | string | RawJson | FuzzJson[] | { [key: string]: FuzzJson };

/** Serializes a FuzzJson tree; lone surrogates come out as `\ud800` escapes (JSON.stringify's well-formed output). */
export function serializeJson(value: FuzzJson): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(serializeJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, child]) => `${JSON.stringify(key)}:${serializeJson(child)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Numbers around the limits of PostgreSQL's int4, JavaScript's safe integers and doubles, and non-integers. */
export const hostileNumber: fc.Arbitrary<FuzzJson> = fc.oneof(
  fc.constantFrom<FuzzJson>(
    2 ** 31,
    2 ** 31 - 1,
    -(2 ** 31) - 1,
    2 ** 32,
    -1,
    0,
    0.5,
    1.5,
    -2.5,
    1e308,
    -1e308,
    5e-324,
    2 ** 53,
    2 ** 53 + 2,
    new RawJson('-0'),
    new RawJson('1e400'),
    new RawJson('-1e400'),
    new RawJson('1.0'),
    new RawJson('123456789012345678901234567890'),
    new RawJson('0.0000000000000000000000001'),
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Characters that break naive storage, rendering or encoding. */
const NASTY_STRINGS = [
  '',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\udbff\udfff',
  '😀𝒜𝟘',
  '\u202eevil\u202c',
  'مرحبا بالعالم',
  'שָׁלוֹם',
  '\ufeff',
  '\u200b\u200d',
  'e\u0301',
  '%00%ff',
  '../../etc/passwd',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '__proto__',
  'constructor',
  '\r\n\t\b\f\\"',
];

/** Text PostgreSQL refuses (NUL in text and jsonb, a lone surrogate's escape in jsonb) or that is long. */
/** Strings PostgreSQL refuses (NUL, lone surrogates) or that are long. */
export const STORAGE_BREAKING_STRINGS: readonly string[] = ['\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '\udbff', 'é'.repeat(10_240)];
export const storageBreakingString: fc.Arbitrary<string> = fc.constantFrom(...STORAGE_BREAKING_STRINGS);

/** Integers just past PostgreSQL's int4, and values no integer column takes. */
/** Numbers past int4 or float bounds, fractions and odd spellings. */
export const STORAGE_BREAKING_NUMBERS: readonly FuzzJson[] = [2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, 1e308, 0.5, new RawJson('-0'), new RawJson('1e400')];
export const storageBreakingNumber: fc.Arbitrary<FuzzJson> = fc.constantFrom<FuzzJson>(...STORAGE_BREAKING_NUMBERS);

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }), weight: 1 },
  { arbitrary: fc.constantFrom(10_240, 100_000).map((length) => 'é'.repeat(length / 2)), weight: 1 },
);

/**
 * Arrays or objects nested `depth` levels deep, as raw text: the tree is never built, so neither the
 * generator nor the serializer recurses into it.
 */
export function nested(depth: number, useObjects: boolean): RawJson {
  return new RawJson(useObjects ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}1${']'.repeat(depth)}`);
}

/** Nesting around the 64-level limit and far beyond it. */
export const deepValue: fc.Arbitrary<FuzzJson> = fc
  .tuple(fc.constantFrom(63, 64, 65, 100, 5_000, 50_000), fc.boolean())
  .map(([depth, useObjects]) => nested(depth, useObjects));

/** Anything a client could put where a field is expected. */
export const hostileValue: fc.Arbitrary<FuzzJson> = fc.oneof(
  { arbitrary: hostileNumber, weight: 4 },
  { arbitrary: hostileString, weight: 4 },
  {
    arbitrary: fc.constantFrom<FuzzJson>(null, true, false, [], {}, [null], { '\u0000': 1 }, { '': '' }, JSON.parse('{"__proto__":1}') as FuzzJson),
    weight: 2,
  },
  { arbitrary: deepValue, weight: 1 },
  { arbitrary: fc.array(fc.constant(0), { minLength: 10_000, maxLength: 10_000 }), weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<FuzzJson>, weight: 2 },
);

/** Whole bodies that are not JSON at all, or JSON of the wrong shape. */
export const malformedJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '{',
    '{"a":',
    '[1,]',
    '{"a":1,}',
    "{'a':1}",
    'nul',
    'NaN',
    'Infinity',
    '\u0000',
    '{"a":1}garbage',
    '{"a":1}{"b":2}',
    '"just a string"',
    '123',
    'null',
    'true',
    '[]',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '\ufeff{}',
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    '{"\\u0000":1}',
    '{"a":"\\x41"}',
    '{"a":01}',
  ),
  fc.string({ unit: 'binary', maxLength: 60 }),
);
