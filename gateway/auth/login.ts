/**
 * Verifying a signed SIWE message, for a login and for linking another wallet, in this
 * order (the first failure answers; docs/auth.md lists the messages):
 *
 *   1. the signature is 0x hex
 *   2. the message parses and has address, chain id and nonce; statement, domain, chain id
 *      and validity times are what the server expects; the address matches the one the
 *      client names (if it names one)
 *   3. the signature recovers to the message's address (EOA only: EIP-1271 contract
 *      signatures are not checked, they fail here)
 *   4. the nonce was issued by us, is unexpired and unused; it is consumed atomically
 *
 * The nonce is consumed last so that a mistyped signature does not burn it, and a replay
 * of a good message fails at step 4 (its nonce is gone). Recovery runs in the worker
 * pool (`services.verifier`), never on the event loop.
 */
import type { Address } from 'viem';
import type { Services } from '../services.ts';
import { checkSiweMessage, isHexSignature, type SiweFields } from './siweMessage.ts';

export type LoginInput = {
  readonly message: string;
  readonly signature: string;
  /** The Host header of the request (the SIWE domain unless SIWE_DOMAIN is set). */
  readonly host: string | undefined;
  /** The address the client says it signs with (verify's `walletAddress`, wallets/verify's `address`). */
  readonly claimedAddress?: string;
  readonly claimedChainId?: number;
};

export type LoginCheck = { readonly ok: true; readonly address: Address; readonly fields: SiweFields } | { readonly ok: false; readonly message: string };

const fail = (message: string): LoginCheck => ({ ok: false, message });

/** The domain a SIWE message must name for this request. */
export function expectedDomain(s: Services, host: string | undefined): string {
  return s.config.siweDomain ?? host ?? '(no Host header)';
}

export function siweStatement(s: Services): string {
  return `Sign in to ${s.config.serviceName}`;
}

export async function verifySiwe(s: Services, input: LoginInput): Promise<LoginCheck> {
  if (!isHexSignature(input.signature)) return fail('Invalid signature format (must be 0x hex)');
  const now = s.pipeline.wallNow();
  const parsed = checkSiweMessage(input.message, { domain: expectedDomain(s, input.host), chainId: s.config.chainId, statement: siweStatement(s), nowMs: now });
  if (!parsed.ok) return parsed;
  const { fields } = parsed;
  if (input.claimedChainId !== undefined && input.claimedChainId !== s.config.chainId) return fail(`ChainId mismatch: expected ${s.config.chainId}`);
  if (input.claimedAddress !== undefined && input.claimedAddress.toLowerCase() !== fields.address.toLowerCase()) {
    return fail('Invalid SIWE message: address does not match the address of the request');
  }

  const [result] = await s.verifier.verify({ kind: 'personal', items: [{ message: input.message, signature: input.signature }] });
  if (result === undefined || result.signer === null || result.signer !== fields.address) return fail('Invalid SIWE signature');

  const nonce = await s.stores.nonces.consume(fields.nonce, s.pipeline.wallNow());
  if (nonce === null) return fail('Invalid or expired nonce');
  // A nonce requested for one wallet cannot sign in another.
  if (nonce.address !== null && nonce.address !== fields.address.toLowerCase()) return fail('Invalid or expired nonce');
  return { ok: true, address: fields.address, fields };
}
