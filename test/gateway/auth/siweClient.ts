/**
 * SIWE and API-key helpers for tests, acting as a user through the venue's typed client
 * (client/): the message lines (client/siwe.ts), the current-form nonce and login
 * (VenueClient.login) and the HMAC headers (VenueClient.credentials). The earlier form
 * (`/auth/siwe/...`, cookie sessions) is not the client's: its login stays hand-made here.
 */
import { knownKey } from '../../support/signedOrders.ts';
import { privateKeyToAccount, generatePrivateKey, type PrivateKeyAccount } from 'viem/accounts';
import { VenueClient } from '../../../client/venueClient.ts';
import { siweMessage as clientSiweMessage } from '../../../client/siwe.ts';
import { request, type JsonResponse } from '../support/testApp.ts';

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

/**
 * A fixed past instant for `Issued At`: the venue refuses messages issued more than 60 s
 * in its future, and tests must not depend on the date they run (test apps start at a
 * fixed `startAt` after it). Tests of the check itself pass their own.
 */
export const DEFAULT_ISSUED_AT = '2025-06-01T00:00:00.000Z';

/** The statements of the two purposes (gateway/auth/login.ts), for SERVICE_NAME=Diffusal. */
export const LOGIN_STATEMENT = 'Sign in to Diffusal';
export const LINK_STATEMENT = 'Link wallet to Diffusal';

/** The interface's lines ("Login by SIWE"), joined by \n: the client's, with the tests' defaults. */
export function siweMessage(f: MessageFields): string {
  return clientSiweMessage({
    ...f,
    statement: f.statement ?? LOGIN_STATEMENT,
    uri: f.uri ?? `http://${f.domain}`,
    chainId: f.chainId ?? 10143,
    issuedAt: f.issuedAt ?? DEFAULT_ISSUED_AT,
  });
}

export function newWallet(): PrivateKeyAccount {
  const key = generatePrivateKey();
  // Remembered: orders a test places for it straight through the engine are signed (test/support/signedOrders.ts).
  return knownKey(privateKeyToAccount(key), key);
}

/** host:port of a test app url: on NETWORK=local the venue accepts it as the SIWE domain (127.0.0.1:<port>). */
export function hostOf(url: string): string {
  return new URL(url).host;
}

export async function currentNonce(url: string, address: string): Promise<string> {
  return (await new VenueClient({ baseUrl: url }).call('POST /api/auth/siwe/nonce', { body: { walletAddress: address, chainId: 10143 } })).nonce;
}

export async function earlierNonce(url: string, address?: string): Promise<string> {
  const r = await request(`${url}/auth/siwe/nonce${address ? `?walletAddress=${address}` : ''}`);
  if (r.status !== 200) throw new Error(`nonce: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.nonce as string;
}

/** A full current-form login through the client; returns the bearer token. `domain` defaults to the url's host:port (for apps pinned by SIWE_DOMAIN, pass it). */
export function login(url: string, wallet: PrivateKeyAccount, options: { domain?: string } = {}): Promise<string> {
  return new VenueClient({ baseUrl: url, account: wallet }).login({ ...options, issuedAt: DEFAULT_ISSUED_AT, chainId: 10143 });
}

/** A full earlier-form login (hand-made: the client speaks only the current form); returns the verify response (with its Set-Cookie header) and the cookie value. */
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

/** The API-key headers signed at `timestamp`, as the client signs them. */
export function hmacHeaders(keyId: string, secret: string, timestamp: number): Record<string, string> {
  return new VenueClient({ baseUrl: 'http://unused.invalid', apiKey: { keyId, secret }, now: () => timestamp }).credentials();
}

/** Raise the auth group's 20/min so that a test file can sign in many times from one IP. */
export const relaxedAuthLimits = { RATE_LIMITS: JSON.stringify({ auth: { anonymous: 10000, tier1: 10000, tier2: 10000, tier3: 10000 } }) };
