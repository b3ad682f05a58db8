/**
 * Verifying a signed SIWE message, for a login and for linking another wallet, in this
 * order (the first failure answers; docs/auth.md lists the messages):
 *
 *   1. the signature is 0x hex
 *   2. the message parses and has address, chain id and nonce; statement (the purpose's
 *      own), domain (SIWE_DOMAIN or the venue's own address, never the Host header), URI
 *      on that domain, chain id and validity times are what the server expects; the
 *      address matches the one the client names (if it names one)
 *   3. the signature recovers to the message's address (EOA only: EIP-1271 contract
 *      signatures are not checked, they fail here)
 *   4. the nonce was issued by us, is unexpired and unused, and was not asked for another
 *      wallet; it is consumed atomically, and only when it belongs to this address
 *
 * The nonce is consumed last so that a mistyped signature does not burn it, and a replay
 * of a good message fails at step 4 (its nonce is gone). A message naming someone else's
 * nonce leaves that nonce alone: its owner can still use it. Recovery runs in the worker
 * pool (`services.verifier`), never on the event loop.
 */
import type { Address } from 'viem';
import type { Services } from '../services.ts';
import { checkSiweMessage, isHexSignature, type SiweFields } from './siweMessage.ts';

/**
 * What a signature is for. Each purpose has its own statement, so that a message signed
 * to sign in can never link a wallet, and one signed to link can never sign in.
 */
export type SiwePurpose = 'login' | 'link';

export type LoginInput = {
  readonly message: string;
  readonly signature: string;
  readonly purpose: SiwePurpose;
  /** The address the client says it signs with (verify's `walletAddress`, wallets/verify's `address`). */
  readonly claimedAddress?: string;
  readonly claimedChainId?: number;
};

export type LoginCheck = { readonly ok: true; readonly address: Address; readonly fields: SiweFields } | { readonly ok: false; readonly message: string };

const fail = (message: string): LoginCheck => ({ ok: false, message });

/** The statement line a message for `purpose` must carry. */
export function siweStatement(serviceName: string, purpose: SiwePurpose): string {
  return purpose === 'login' ? `Sign in to ${serviceName}` : `Link wallet to ${serviceName}`;
}

export async function verifySiwe(s: Services, input: LoginInput): Promise<LoginCheck> {
  if (!isHexSignature(input.signature)) return fail('Invalid signature format (must be 0x hex)');
  const now = s.pipeline.wallNow();
  const parsed = checkSiweMessage(input.message, {
    domains: s.siweDomains.accepted(),
    chainId: s.config.chainId,
    statement: siweStatement(s.config.serviceName, input.purpose),
    nowMs: now,
  });
  if (!parsed.ok) return parsed;
  const { fields } = parsed;
  if (input.claimedChainId !== undefined && input.claimedChainId !== s.config.chainId) return fail(`ChainId mismatch: expected ${s.config.chainId}`);
  if (input.claimedAddress !== undefined && input.claimedAddress.toLowerCase() !== fields.address.toLowerCase()) {
    return fail('Invalid SIWE message: address does not match the address of the request');
  }

  const [result] = await s.verifier.verify({ kind: 'personal', items: [{ message: input.message, signature: input.signature }] });
  if (result === undefined || result.signer === null || result.signer !== fields.address) return fail('Invalid SIWE signature');

  // A nonce requested for one wallet cannot sign in another, and is not consumed by the attempt.
  const nonce = await s.stores.nonces.consume(fields.nonce, s.pipeline.wallNow(), fields.address.toLowerCase());
  if (nonce === null) return fail('Invalid or expired nonce');
  return { ok: true, address: fields.address, fields };
}
