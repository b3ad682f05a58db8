/**
 * Parsing at the edge returns values, not exceptions (style.md habit 3): a field error
 * names the field so the gateway can answer 400 with a message a client can act on.
 */
export type FieldError = { readonly field: string; readonly message: string };

export type Parsed<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: FieldError };

export function ok<T>(value: T): Parsed<T> {
  return { ok: true, value };
}

export function fail(field: string, message: string): { readonly ok: false; readonly error: FieldError } {
  return { ok: false, error: { field, message } };
}
