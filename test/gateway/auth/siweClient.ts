/**
 * A SIWE client for tests, as a wallet front end would be: build the interface's
 * message lines, sign them with a viem account (personal_sign) and post them. Also the
 * HMAC headers of an API key.
 */
import { createHmac } from 'node:crypto';
import { privateKeyToAccount, generatePrivateKey, type PrivateKeyAccount } from 'viem/accounts';
import { request, TEST_START_AT, type JsonResponse } from '../support/testApp.ts';

export type MessageFields = {
  domain: string;
  address: string;
  chainId?: number;
  nonce: string;
  statement?: string;
  uri?: string;
  issuedAt?: string;
  expirationTime?: string;
};

/** The interface's lines ("Login by SIWE"), joined by \n. */
export function siweMessage(f: MessageFields): string {
  return [
    `${f.domain} wants you to sign in with your Ethereum account:`,
    f.address,
    '',
    f.statement ?? 'Sign in to Diffusal',
    '',
    `URI: ${f.uri ?? `http://${f.domain}`}`,
    'Version: 1',
    `Chain ID: ${f.chainId ?? 10143}`,
    `Nonce: ${f.nonce}`,
    `Issued At: ${f.issuedAt ?? new Date(TEST_START_AT).toISOString()}`,
    ...(f.expirationTime !== undefined ? [`Expiration Time: ${f.expirationTime}`] : []),
  ].join('\n');
}

export function newWallet(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

/** host:port of a test app url, what the server expects as the SIWE domain. */
export function hostOf(url: string): string {
  return new URL(url).host;
}

export async function currentNonce(url: string, address: string): Promise<string> {
  const r = await request(`${url}/api/auth/siwe/nonce`, { body: { walletAddress: address, chainId: 10143 } });
  if (r.status !== 200) throw new Error(`nonce: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.nonce as string;
}

export async function earlierNonce(url: string, address?: string): Promise<string> {
  const r = await request(`${url}/auth/siwe/nonce${address ? `?walletAddress=${address}` : ''}`);
  if (r.status !== 200) throw new Error(`nonce: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.nonce as string;
}

/** A full current-form login; returns the bearer token. */
export async function login(url: string, wallet: PrivateKeyAccount): Promise<string> {
  const nonce = await currentNonce(url, wallet.address);
  const message = siweMessage({ domain: hostOf(url), address: wallet.address, nonce });
  const signature = await wallet.signMessage({ message });
  const r = await request(`${url}/api/auth/siwe/verify`, { body: { message, signature, walletAddress: wallet.address, chainId: 10143 } });
  if (r.status !== 200) throw new Error(`verify: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.token as string;
}

/** A full earlier-form login; returns the verify response (with its Set-Cookie header) and the cookie value. */
export async function loginEarlier(url: string, wallet: PrivateKeyAccount): Promise<{ response: JsonResponse; cookie: string }> {
  const nonce = await earlierNonce(url, wallet.address);
  const message = siweMessage({ domain: hostOf(url), address: wallet.address, nonce });
  const signature = await wallet.signMessage({ message });
  const response = await request(`${url}/auth/siwe/verify`, { body: { message, signature } });
  if (response.status !== 200) throw new Error(`verify: ${response.status} ${JSON.stringify(response.body)}`);
  const setCookie = response.headers.get('set-cookie') ?? '';
  const m = /session=([^;]*)/.exec(setCookie);
  if (!m) throw new Error(`no session cookie in ${setCookie}`);
  return { response, cookie: m[1]! };
}

export function hmacHeaders(keyId: string, secret: string, timestamp: number): Record<string, string> {
  const ts = String(timestamp);
  return { 'x-api-key': keyId, 'x-api-timestamp': ts, 'x-api-signature': createHmac('sha256', secret).update(ts).digest('hex') };
}

/** Raise the auth group's 20/min so that a test file can sign in many times from one IP. */
export const relaxedAuthLimits = { RATE_LIMITS: JSON.stringify({ auth: { anonymous: 10000, tier1: 10000, tier2: 10000, tier3: 10000 } }) };
