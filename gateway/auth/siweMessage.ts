/**
 * Sign-In with Ethereum (EIP-4361) messages: parsing with the `siwe` package and the
 * venue's checks on the fields (docs/auth.md "Sign-in"). Pure: no clock (the caller
 * passes `nowMs`), no I/O; signature recovery and nonce consumption happen in login.ts.
 *
 * Every refusal is a message from the interface's list ("Invalid SIWE message: no
 * address", "Domain mismatch: expected ...", ...), answered as 401 `unauthenticated`.
 */
import { SiweMessage } from 'siwe';
import { getAddress, type Address } from 'viem';

/** What the server expects of a message. */
export type SiweExpectation = {
  /** The API host (`Host` header) or SIWE_DOMAIN. */
  readonly domain: string;
  readonly chainId: number;
  /** `Sign in to ${SERVICE_NAME}`. */
  readonly statement: string;
  readonly nowMs: number;
};

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

/** The parser's first line, without its `Error:` prefix: `line 9: invalid nonce`. */
function parserReason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (text.split('\n')[0] ?? text).replace(/^Error:\s*/, '').slice(0, 200) || 'unparseable';
}

/**
 * Parse a message and check it against what the server expects. The three fields the
 * interface names (address, chain id, nonce) are looked for first so that their absence
 * gets its own message; anything else the EIP-4361 grammar refuses is reported with the
 * parser's reason.
 */
export function checkSiweMessage(message: string, expect: SiweExpectation): SiweCheck {
  if (message.length === 0 || message.length > MAX_SIWE_MESSAGE_CHARS) return invalid(`must be 1 to ${MAX_SIWE_MESSAGE_CHARS} characters`);
  const lines = message.split('\n');
  const addressLine = lines[1] ?? '';
  if (!ADDRESS_LINE.test(addressLine)) return invalid('no address');
  if (!lines.some((l) => l.startsWith('Chain ID: '))) return invalid('no chainId');
  if (!lines.some((l) => l.startsWith('Nonce: '))) return invalid('no nonce');

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
  if (parsed.domain.toLowerCase() !== expect.domain.toLowerCase()) return { ok: false, message: `Domain mismatch: expected ${expect.domain}` };
  if (parsed.chainId !== expect.chainId) return { ok: false, message: `ChainId mismatch: expected ${expect.chainId}` };
  if (parsed.expirationTime !== undefined && Date.parse(parsed.expirationTime) <= expect.nowMs) return invalid('expired (Expiration Time has passed)');
  if (parsed.notBefore !== undefined && Date.parse(parsed.notBefore) > expect.nowMs) return invalid('not yet valid (Not Before is in the future)');
  return { ok: true, fields: { address: getAddress(parsed.address), domain: parsed.domain, chainId: parsed.chainId, nonce: parsed.nonce, issuedAt: parsed.issuedAt ?? '' } };
}
