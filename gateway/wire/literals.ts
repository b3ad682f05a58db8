/**
 * Schemas of the wire's value lists, built from the lists themselves: the engine's `as const`
 * arrays (CANCEL_REASONS, ORDER_STATUSES, TIME_IN_FORCE, MMP_REASONS) are the one source, so a
 * value the engine adds is in the validators, the OpenAPI and the AsyncAPI documents at once,
 * and a schema cannot leave one out.
 */
import { Type, type SchemaOptions, type TLiteral, type TUnion } from '@sinclair/typebox';

/** The string literals `values`, in their order (for a union with more members, e.g. null). */
export function literals<const T extends readonly string[]>(values: T): TLiteral<T[number]>[] {
  return values.map((v) => Type.Literal(v));
}

/** A union of the string literals `values`, in their order. */
export function literalUnion<const T extends readonly string[]>(values: T, options?: SchemaOptions): TUnion<TLiteral<T[number]>[]> {
  return Type.Union(literals(values), options);
}
