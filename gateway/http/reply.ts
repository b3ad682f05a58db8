/**
 * The wire form of a reply, independent of the transport: status, content type, headers
 * and a body ready to write. The pipeline produces these; the uWS adapter writes them.
 */
import { STATUS_CODES } from 'node:http';
import { errorBody, errorCodes, type ErrorReply } from './errors.ts';
import type { Form, ReplyHeaders } from './route.ts';

export type WireReply = {
  readonly status: number;
  /** null: no Content-Type (e.g. 204). */
  readonly contentType: string | null;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: string | Uint8Array;
};

export const jsonContentType = 'application/json; charset=utf-8';

const statusLines = new Map<number, string>();

/** `200 OK`, cached: uWS wants the whole status line. */
export function statusLine(status: number): string {
  let line = statusLines.get(status);
  if (line === undefined) {
    line = `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
    statusLines.set(status, line);
  }
  return line;
}

function bigintAsString(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/**
 * JSON.stringify, with bigint values written as decimal strings (the wire convention
 * for WAD and COLLATERAL6). The replacer only runs when the plain call fails, so
 * bodies without bigint pay nothing for it.
 */
export function serialiseJson(body: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(body);
  } catch (err) {
    if (!(err instanceof TypeError) || !/BigInt/i.test(err.message)) throw err;
    text = JSON.stringify(body, bigintAsString);
  }
  // JSON.stringify(undefined) is undefined: answer `null` rather than an empty body.
  return text ?? 'null';
}

const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const unsafeValue = /[\r\n\0]/;

function checked(name: string, value: unknown): readonly [string, string] {
  const text = String(value);
  // uWS writes headers verbatim: a CR/LF in a value would let it inject headers.
  if (!headerName.test(name) || unsafeValue.test(text)) throw new Error(`invalid reply header ${JSON.stringify(name)}`);
  return [name, text];
}

/** Flattens reply headers (a list value becomes repeated headers, e.g. Set-Cookie); throws on an unsafe one. */
export function headerPairs(headers: ReplyHeaders | undefined, into: Array<readonly [string, string]>): void {
  if (headers === undefined) return;
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (Array.isArray(value)) for (const v of value as readonly unknown[]) into.push(checked(name, v));
    else if (value !== undefined) into.push(checked(name, value));
  }
}

/** The wire reply for an error in the shape of the form. */
export function errorWire(form: Form, reply: ErrorReply, extraHeaders: ReadonlyArray<readonly [string, string]> = []): WireReply {
  const headers: Array<readonly [string, string]> = [...extraHeaders];
  headerPairs(reply.headers, headers);
  return { status: errorCodes[reply.error.code].status, contentType: jsonContentType, headers, body: serialiseJson(errorBody(form, reply.error)) };
}

/** The form an unmatched path answers in: paths under `/api` are current, others earlier. */
export function formOfPath(path: string): Form {
  return path === '/api' || path.startsWith('/api/') ? 'current' : 'earlier';
}
