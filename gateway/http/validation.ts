/**
 * Request validation, compiled once per route at start (TypeBox TypeCompiler).
 *
 * - Path parameters and query values arrive as strings and are coerced per schema by
 *   strict rules of our own: TypeBox's Value.Convert truncates ("1.5" -> 1 for an
 *   integer, "0x10" -> 0), which would silently change what a client asked for.
 * - Defaults declared in schemas are filled in.
 * - The first error becomes a 400 message naming the field (`limit must be greater than
 *   0`, `seriesId is required`); a schema option `errorMessage` replaces the message
 *   for a wrong value of that field (a missing field still says `... is required`).
 * - Unknown fields are not rejected (api.md); schemas must not set
 *   `additionalProperties: false`.
 */
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { fail, ok, type Parsed } from '../../engine/index.ts';

export type InputLocation = 'path' | 'query' | 'body';

export type InputValidator = {
  /** Coerces (path, query), fills defaults and checks; the value may be mutated in place. */
  readonly parse: (value: unknown) => Parsed<unknown>;
};

type SchemaLike = {
  readonly type?: string | readonly string[];
  readonly anyOf?: readonly SchemaLike[];
  readonly const?: unknown;
  readonly items?: SchemaLike;
  readonly properties?: Readonly<Record<string, SchemaLike>>;
  readonly errorMessage?: unknown;
  readonly [key: string]: unknown;
};

const decimal = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** Converts a query/path string to what the schema wants when the conversion is exact; else returns it unchanged. */
function coerceScalar(schema: SchemaLike, raw: string): unknown {
  if (schema.anyOf !== undefined) {
    // A string alternative wins as is; otherwise the first alternative that accepts a conversion.
    for (const alt of schema.anyOf) if (alt.type === 'string' && (alt.const === undefined || alt.const === raw)) return raw;
    for (const alt of schema.anyOf) {
      const v = coerceScalar(alt, raw);
      if (v !== raw) return v;
    }
    return raw;
  }
  const type = schema.type;
  if (type === 'number' || type === 'integer') {
    if (!decimal.test(raw)) return raw;
    const n = Number(raw);
    if (!Number.isFinite(n) || (type === 'integer' && !Number.isSafeInteger(n))) return raw;
    return n;
  }
  if (type === 'boolean') {
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    return raw;
  }
  if (type === 'null' && raw === 'null') return null;
  return raw;
}

function wantsArray(schema: SchemaLike): boolean {
  return schema.type === 'array' || (schema.anyOf?.some((s) => s.type === 'array') ?? false);
}

function coerceProperty(schema: SchemaLike, raw: string | string[]): unknown {
  if (wantsArray(schema)) {
    const items = schema.type === 'array' ? schema.items : schema.anyOf?.find((s) => s.type === 'array')?.items;
    const list = Array.isArray(raw) ? raw : [raw];
    return items === undefined ? list : list.map((s) => coerceScalar(items, s));
  }
  // A repeated key for a scalar field: the first value counts, as most frameworks do.
  return coerceScalar(schema, Array.isArray(raw) ? (raw[0] ?? '') : raw);
}

function hasDefaults(schema: unknown): boolean {
  if (schema === null || typeof schema !== 'object') return false;
  if (Object.hasOwn(schema, 'default')) return true;
  return Object.values(schema).some((v) => hasDefaults(v));
}

/** JSON-pointer path of an error -> `orders[0].size`; the root is named after its location. */
export function fieldName(path: string, location: InputLocation): string {
  if (path === '') return location === 'body' ? 'body' : location;
  let out = '';
  for (const raw of path.slice(1).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^[0-9]+$/.test(part) ? `[${part}]` : out === '' ? part : `.${part}`;
  }
  return out.length > 100 ? `${out.slice(0, 100)}...` : out;
}

function typeName(schema: SchemaLike): string {
  const t = schema.type;
  return t === 'integer' ? 'an integer' : t === 'array' ? 'an array' : t === 'object' ? 'an object' : t === 'null' ? 'null' : `a ${String(t)}`;
}

function describeConst(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** The 400 message for one TypeBox error. */
export function describeError(error: ValueError, location: InputLocation): string {
  const field = fieldName(error.path, location);
  if (error.type === ValueErrorType.ObjectRequiredProperty) return `${field} is required`;
  const schema = error.schema as SchemaLike;
  if (typeof schema.errorMessage === 'string') return schema.errorMessage;
  switch (error.type) {
    case ValueErrorType.String:
    case ValueErrorType.Number:
    case ValueErrorType.Integer:
    case ValueErrorType.Boolean:
    case ValueErrorType.Array:
    case ValueErrorType.Object:
    case ValueErrorType.Null:
      return `${field} must be ${typeName(schema)}`;
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum:
      return `${field} must be greater than or equal to ${String(schema['minimum'])}`;
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.IntegerExclusiveMinimum:
      return `${field} must be greater than ${String(schema['exclusiveMinimum'])}`;
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum:
      return `${field} must be less than or equal to ${String(schema['maximum'])}`;
    case ValueErrorType.NumberExclusiveMaximum:
    case ValueErrorType.IntegerExclusiveMaximum:
      return `${field} must be less than ${String(schema['exclusiveMaximum'])}`;
    case ValueErrorType.NumberMultipleOf:
    case ValueErrorType.IntegerMultipleOf:
      return `${field} must be a multiple of ${String(schema['multipleOf'])}`;
    case ValueErrorType.StringMinLength:
      return schema['minLength'] === 1 ? `${field} must not be empty` : `${field} must be at least ${String(schema['minLength'])} characters long`;
    case ValueErrorType.StringMaxLength:
      return `${field} must be at most ${String(schema['maxLength'])} characters long`;
    case ValueErrorType.StringPattern:
    case ValueErrorType.StringFormat:
    case ValueErrorType.StringFormatUnknown:
      return `${field} has an invalid format`;
    case ValueErrorType.ArrayMinItems:
      return `${field} must have at least ${String(schema['minItems'])} item${schema['minItems'] === 1 ? '' : 's'}`;
    case ValueErrorType.ArrayMaxItems:
      return `${field} must have at most ${String(schema['maxItems'])} items`;
    case ValueErrorType.ArrayUniqueItems:
      return `${field} must not contain duplicates`;
    case ValueErrorType.Literal:
      return `${field} must be ${describeConst(schema.const)}`;
    case ValueErrorType.Union: {
      const alts = schema.anyOf ?? [];
      if (alts.length > 0 && alts.every((a) => a.const !== undefined)) return `${field} must be one of: ${alts.map((a) => describeConst(a.const)).join(', ')}`;
      return `${field} is invalid`;
    }
    default:
      return `${field} is invalid`;
  }
}

/**
 * Compile the validator of one input. `coerce` is for path and query objects, whose
 * values are strings (a repeated query key is an array of strings).
 */
export function compileInput(schema: TSchema, location: InputLocation, coerce: boolean): InputValidator {
  const checker = TypeCompiler.Compile(schema);
  const props = (schema as SchemaLike).properties ?? {};
  const coercers = coerce ? Object.entries(props).map(([name, s]) => [name, s] as const) : [];
  // Path and query objects are flat: their defaults are filled here, cheaper than
  // Value.Default, which walks the whole schema; bodies with defaults use Value.Default.
  const flatDefaults = coerce ? Object.entries(props).filter(([, s]) => Object.hasOwn(s, 'default')).map(([name, s]) => [name, s['default']] as const) : [];
  const deepDefaults = !coerce && hasDefaults(schema);

  function parse(input: unknown): Parsed<unknown> {
    let value = input;
    if (coerce && value !== null && typeof value === 'object') {
      const record = value as Record<string, string | string[]>;
      for (const [name, s] of coercers) {
        const raw = record[name];
        if (raw !== undefined) (value as Record<string, unknown>)[name] = coerceProperty(s, raw);
      }
    }
    if (flatDefaults.length > 0 && value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      for (const [name, d] of flatDefaults) if (record[name] === undefined) record[name] = typeof d === 'object' && d !== null ? structuredClone(d) : d;
    }
    if (deepDefaults) value = Value.Default(schema, value);
    if (checker.Check(value)) return ok(value);
    const first = checker.Errors(value).First();
    if (first === undefined) return fail(location, `${location} is invalid`);
    return fail(fieldName(first.path, location), describeError(first, location));
  }
  return { parse };
}

/** Compile a response check (used when the server validates replies, in tests and development). */
export function compileResponse(schema: TSchema): (value: unknown) => string | null {
  const checker = TypeCompiler.Compile(schema);
  return (value) => {
    if (checker.Check(value)) return null;
    const first = checker.Errors(value).First();
    return first === undefined ? 'invalid' : `${first.path || '/'}: ${first.message}`;
  };
}

/** What URLSearchParams decodes or replaces: escapes, `+`, UTF-16 surrogates (lone ones become U+FFFD), a leading `?`. */
const NEEDS_DECODING = /[%+\uD800-\uDFFF]|^\?/;

/**
 * Query string -> object of strings (repeated keys become arrays), with no prototype so
 * that keys like `__proto__` are plain data. The same entries as URLSearchParams.
 */
export function parseQuery(raw: string): Record<string, string | string[]> {
  const out = Object.create(null) as Record<string, string | string[]>;
  if (raw === '') return out;
  // Nothing URLSearchParams would change (no `%`, `+`, surrogate or leading `?`): split by
  // hand, as it would (4x faster on a public read's query, e.g. the leaderboard's).
  if (!NEEDS_DECODING.test(raw)) {
    let start = 0;
    while (start <= raw.length) {
      let end = raw.indexOf('&', start);
      if (end < 0) end = raw.length;
      if (end > start) {
        const eq = raw.indexOf('=', start);
        if (eq < 0 || eq > end) add(out, raw.slice(start, end), '');
        else add(out, raw.slice(start, eq), raw.slice(eq + 1, end));
      }
      start = end + 1;
    }
    return out;
  }
  for (const [key, value] of new URLSearchParams(raw)) add(out, key, value);
  return out;
}

function add(out: Record<string, string | string[]>, key: string, value: string): void {
  const prev = out[key];
  if (prev === undefined) out[key] = value;
  else if (Array.isArray(prev)) prev.push(value);
  else out[key] = [prev, value];
}
