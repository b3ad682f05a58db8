/**
 * TypeBox schemas as plain JSON Schema for the generated documents (OpenAPI, AsyncAPI,
 * llms.txt). TypeBox schemas carry symbol keys and our `errorMessage` option; documents
 * want neither. Schemas with an `$id` are hoisted into a components map and referenced,
 * so a shared type (Ticker, Series) is described once.
 */
import type { TSchema } from '@sinclair/typebox';

export type JsonSchema = { [key: string]: unknown };

/** Keys that are ours, not JSON Schema. */
const privateKeys = new Set(['errorMessage']);

/**
 * Deep copy of a schema without symbols and private keys; `$id` schemas move into
 * `components` and become `{ $ref: refBase + id }`. Throws when one `$id` names two
 * different schemas (a programming error).
 */
export function toJsonSchema(schema: TSchema | JsonSchema, components: Record<string, JsonSchema>, refBase: string): JsonSchema {
  return walk(schema, components, refBase) as JsonSchema;
}

function walk(value: unknown, components: Record<string, JsonSchema>, refBase: string): unknown {
  if (Array.isArray(value)) return value.map((v) => walk(v, components, refBase));
  if (value === null || typeof value !== 'object') return value;
  const out: JsonSchema = {};
  for (const key of Object.keys(value)) {
    if (privateKeys.has(key) || key === '$id') continue;
    out[key] = walk((value as Record<string, unknown>)[key], components, refBase);
  }
  const id = (value as { $id?: unknown }).$id;
  if (typeof id !== 'string') return out;
  const name = id.replace(/[^A-Za-z0-9._-]/g, '_');
  const existing = components[name];
  if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(out)) throw new Error(`two different schemas share $id "${id}"`);
  components[name] = out;
  return { $ref: `${refBase}${name}` };
}

/** A short type description for prose (llms.txt): `string`, `integer >= 1`, `"a" | "b"`, `{ a, b? }`. */
export function describeType(schema: JsonSchema | undefined, depth = 0): string {
  if (schema === undefined) return 'any';
  if (typeof schema['$ref'] === 'string') return String(schema['$ref']).split('/').pop() ?? 'object';
  if (schema['const'] !== undefined) return JSON.stringify(schema['const']);
  const anyOf = schema['anyOf'];
  if (Array.isArray(anyOf)) return anyOf.map((s) => describeType(s as JsonSchema, depth)).join(' | ');
  const type = schema['type'];
  if (type === 'array') return `${describeType(schema['items'] as JsonSchema | undefined, depth + 1)}[]`;
  if (type === 'object') {
    const props = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
    const required = new Set((schema['required'] ?? []) as string[]);
    const names = Object.keys(props);
    if (names.length === 0) return 'object';
    if (depth >= 3) return '{ ... }';
    return `{ ${names.map((n) => `${n}${required.has(n) ? '' : '?'}: ${describeType(props[n], depth + 1)}`).join(', ')} }`;
  }
  const bits: string[] = [typeof type === 'string' ? type : 'any'];
  if (schema['minimum'] !== undefined) bits.push(`>= ${String(schema['minimum'])}`);
  if (schema['exclusiveMinimum'] !== undefined) bits.push(`> ${String(schema['exclusiveMinimum'])}`);
  if (schema['maximum'] !== undefined) bits.push(`<= ${String(schema['maximum'])}`);
  if (schema['exclusiveMaximum'] !== undefined) bits.push(`< ${String(schema['exclusiveMaximum'])}`);
  if (schema['pattern'] !== undefined) bits.push(`matching ${String(schema['pattern'])}`);
  if (schema['default'] !== undefined) bits.push(`(default ${JSON.stringify(schema['default'])})`);
  return bits.join(' ');
}
