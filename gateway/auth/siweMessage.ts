/**
 * Sign-In with Ethereum (EIP-4361) messages: parsing with the `siwe` package and the
 * venue's checks on the fields (docs/auth.md "Sign-in"). Pure: no clock (the caller
 * passes `nowMs`), no I/O; signature recovery and nonce consumption happen in login.ts.
 *
 * Every refusal is a message from the interface's list ("Invalid SIWE message: no
 * address", "Domain mismatch: expected ...", ...) or one of ours in the same style,
 * answered as 401 `unauthenticated`; none echoes the parser's internals.
 */
import { SiweMessage } from 'siwe';
import { getAddress, type Address } from 'viem';

/** What the server expects of a message. */
export type SiweExpectation = {
  /** The accepted domains, lowercased host[:port] (gateway/auth/siweDomains.ts); never the Host header. */
  readonly domains: readonly string[];
  readonly chainId: number;
  /** `Sign in to ${SERVICE_NAME}` for a login, `Link wallet to ${SERVICE_NAME}` for linking (login.ts). */
  readonly statement: string;
  readonly nowMs: number;
};

/** How far in the future `Issued At` may be (clock skew between wallet and venue). */
export const ISSUED_AT_SKEW_MS = 60_000;

export type SiweFields = {
  /** EIP-55. */
  readonly address: Address;
  readonly domain: string;
  readonly chainId: number;
  readonly nonce: string;
  readonly issuedAt: string;
};

export type SiweCheck = { readonly ok: true; readonly fields: SiweFields } | { readonly ok: false; readonly message: string };

/** Longest message accepted: the interface's lines with generous room for URI and resources. */
export const MAX_SIWE_MESSAGE_CHARS = 4096;

const ADDRESS_LINE = /^0x[0-9a-fA-F]{40}$/;
const HEX_SIGNATURE = /^0x[0-9a-fA-F]+$/;

/** The interface's "Invalid signature format (must be 0x hex)" check; the length is the verifier's business. */
export function isHexSignature(signature: unknown): signature is string {
  return typeof signature === 'string' && signature.length <= 1024 && HEX_SIGNATURE.test(signature);
}

const invalid = (why: string): SiweCheck => ({ ok: false, message: `Invalid SIWE message: ${why}` });

const HEADER_SUFFIX = ' wants you to sign in with your Ethereum account:';

/**
 * The parser's reasons (`line 9: invalid nonce`), each as a fixed short text: the parser's
 * own message also carries its internal state, which is never shown to clients.
 */
const PARSER_REASONS: ReadonlyArray<readonly [RegExp, string]> = [
  [/invalid EIP-55 address/, 'address has a wrong EIP-55 checksum'],
  [/invalid address/, 'invalid address'],
  [/invalid domain/, 'invalid domain'],
  [/invalid URI/, 'invalid URI'],
  [/invalid version/, 'Version must be 1'],
  [/invalid chain-id/, 'invalid Chain ID'],
  [/invalid nonce/, 'invalid Nonce (at least 8 letters or digits)'],
  [/invalid issued-at/, 'invalid Issued At (an RFC 3339 date-time)'],
  [/invalid expiration-time/, 'invalid Expiration Time (an RFC 3339 date-time)'],
  [/invalid not-before/, 'invalid Not Before (an RFC 3339 date-time)'],
  [/invalid requestID/, 'invalid Request ID'],
  [/invalid resource/, 'invalid Resources'],
];

function parserReason(err: unknown): string {
  const first = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
  for (const [pattern, reason] of PARSER_REASONS) if (pattern.test(first)) return reason;
  return 'not in the EIP-4361 format';
}

/** The authority (`host[:port]`, with any user info) of an http(s) URI, or null. */
function uriAuthority(uri: string): string | null {
  const m = /^https?:\/\/([^/?#]*)/i.exec(uri);
  return m ? m[1]!.toLowerCase() : null;
}

/**
 * Parse a message and check it against what the server expects. The three fields the
 * interface names (address, chain id, nonce) are looked for first so that their absence
 * gets its own message, then the other required lines; anything else the EIP-4361 grammar
 * refuses is reported by a fixed text naming the field (never the parser's own message).
 */
export function checkSiweMessage(message: string, expect: SiweExpectation): SiweCheck {
  if (message.length === 0 || message.length > MAX_SIWE_MESSAGE_CHARS) return invalid(`must be 1 to ${MAX_SIWE_MESSAGE_CHARS} characters`);
  const lines = message.split('\n');
  const addressLine = lines[1] ?? '';
  if (!ADDRESS_LINE.test(addressLine)) return invalid('no address');
  if (!lines.some((l) => l.startsWith('Chain ID: '))) return invalid('no chainId');
  if (!lines.some((l) => l.startsWith('Nonce: '))) return invalid('no nonce');
  if (!(lines[0] ?? '').endsWith(HEADER_SUFFIX)) return invalid(`missing the first line "<domain>${HEADER_SUFFIX}"`);
  if (!lines.some((l) => l.startsWith('URI: '))) return invalid('missing URI');
  if (!lines.some((l) => l.startsWith('Version: '))) return invalid('missing Version');
  if (!lines.some((l) => l.startsWith('Issued At: '))) return invalid('missing Issued At');

  // EIP-4361 wants the EIP-55 form; wallets and libraries that send the address all in
  // lower case are common, so such a line is checksummed for parsing only. The signature
  // is still checked over the text exactly as sent. A mixed-case address with a wrong
  // checksum is refused (it is probably a typo).
  let parseable = message;
  if (addressLine === addressLine.toLowerCase() || addressLine.slice(2) === addressLine.slice(2).toUpperCase()) {
    lines[1] = getAddress(addressLine.toLowerCase());
    parseable = lines.join('\n');
  }
  let parsed: SiweMessage;
  try {
    parsed = new SiweMessage(parseable);
  } catch (err) {
    return invalid(parserReason(err));
  }
  if (parsed.scheme !== undefined && parsed.scheme !== 'https' && parsed.scheme !== 'http') return invalid(`unsupported scheme ${parsed.scheme}`);
  if ((parsed.statement ?? '') !== expect.statement) return invalid(`statement must be "${expect.statement}"`);
  const domain = parsed.domain.toLowerCase();
  if (!expect.domains.includes(domain)) return { ok: false, message: `Domain mismatch: expected ${expect.domains.length > 0 ? expect.domains.join(' or ') : '(no domain configured)'}` };
  if (uriAuthority(parsed.uri) !== domain) return invalid('URI must be an http(s) URI with the same host[:port] as the domain');
  if (parsed.chainId !== expect.chainId) return { ok: false, message: `ChainId mismatch: expected ${expect.chainId}` };
  if (parsed.expirationTime !== undefined && Date.parse(parsed.expirationTime) <= expect.nowMs) return invalid('expired (Expiration Time has passed)');
  if (parsed.notBefore !== undefined && Date.parse(parsed.notBefore) > expect.nowMs) return invalid('not yet valid (Not Before is in the future)');
  const issuedAt = Date.parse(parsed.issuedAt ?? '');
  if (Number.isNaN(issuedAt)) return invalid('invalid Issued At (an RFC 3339 date-time)');
  if (issuedAt > expect.nowMs + ISSUED_AT_SKEW_MS) return invalid('Issued At is in the future');
  return { ok: true, fields: { address: getAddress(parsed.address), domain: parsed.domain, chainId: parsed.chainId, nonce: parsed.nonce, issuedAt: parsed.issuedAt ?? '' } };
}
