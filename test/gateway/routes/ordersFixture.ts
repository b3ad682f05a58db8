/**
 * Shared setup of the order-entry and RFQ tests: viem wallets, funded portfolios through
 * engine commands, live series; the user side goes through the venue's typed client
 * (client/): requests sent by a VenueClient, served typed data signed by client/signing.ts.
 * Tests that forge or tamper a signature for a refusal build that request themselves.
 */
import { keccak256, toBytes, type Hex, type PrivateKeyAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { VenueClient } from '../../../client/venueClient.ts';
import type { RouteKey } from '../../../client/routes.ts';
import { signedMessage, type ServedTypedData } from '../../../client/signing.ts';
import type { JsonResponse, TestApp } from '../support/testApp.ts';
import type { SeriesActor } from '../../../engine/actors/series.ts';
import { pairIdOf } from '../../../engine/domain/ids.ts';

export const usdc = (n: number) => BigInt(Math.round(n * 1e6));
export const wad = (n: number) => BigInt(Math.round(n * 1e6)) * 10n ** 12n;

export function wallet(name: string): PrivateKeyAccount {
  return privateKeyToAccount(keccak256(toBytes(`orders-test-${name}`)));
}

export type Trader = { readonly account: PrivateKeyAccount; readonly address: Hex; readonly token: string; readonly portfolioId: number };

/** A logged-in wallet with a funded trading portfolio (or, for an MMM, funded portfolio 0). */
export async function trader(app: TestApp, name: string, opts: { deposit?: number; mmm?: boolean } = {}): Promise<Trader> {
  const account = wallet(name);
  const owner = account.address;
  const submit = app.app.services.pipeline.submit.bind(app.app.services.pipeline);
  let portfolioId = 0;
  if (opts.mmm) {
    const r = await submit({ type: 'set_mmm', address: owner, isMmm: true });
    if (!r.ok) throw new Error(`set_mmm: ${r.rejection.code}`);
  } else {
    const r = await submit({ type: 'create_portfolio', owner });
    if (!r.ok || r.value === null || !('portfolioId' in r.value)) throw new Error('create_portfolio failed');
    portfolioId = r.value.portfolioId;
  }
  if ((opts.deposit ?? 0) > 0) {
    const r = await submit({ type: 'deposit', owner, portfolioId, amount: usdc(opts.deposit!) });
    if (!r.ok) throw new Error(`deposit: ${r.rejection.code}`);
  }
  return { account, address: owner, token: await app.session(owner), portfolioId };
}

/** A live series expiring at least a day after the app's clock, near the money (`offset` strikes away). */
export function liveSeries(app: TestApp, isCall = true, pair = 'BTC-USDC', offset = 0): SeriesActor {
  const state = app.app.engine.state;
  const pairId = pairIdOf(pair);
  const minExpiry = Math.floor(app.clock.now / 1000) + 86_400;
  const live = [...state.series.values()].filter((s) => s.spec.pairId === pairId && s.spec.isCall === isCall && !s.settled && s.spec.expiry >= minExpiry);
  const expiry = Math.min(...live.map((s) => s.spec.expiry));
  const atExpiry = live.filter((s) => s.spec.expiry === expiry).sort((a, b) => (a.spec.strike < b.spec.strike ? -1 : 1));
  return atExpiry[Math.floor(atExpiry.length / 2) + offset]!;
}

export { toViemMessage } from '../../../client/signing.ts';

/** Sign a served typedData with the client's signing; returns the message as the wire wants it plus `signature`. */
export function signServed(account: PrivateKeyAccount, typedData: any): Promise<Record<string, unknown> & { signature: Hex }> {
  return signedMessage(account, typedData as ServedTypedData);
}

/** POST a body as the user of `token`, through the client (any reply, not judged). */
export async function post(app: TestApp, path: string, token: string, body: unknown): Promise<JsonResponse> {
  const r = await new VenueClient({ baseUrl: app.url, token }).raw(`POST ${path}` as RouteKey, { body } as never);
  return r as JsonResponse;
}

/** Place through both phases; returns the phase-one and the relay reply. */
export async function place(app: TestApp, t: Trader, body: Record<string, unknown>): Promise<{ typed: JsonResponse; relay: JsonResponse; signed: Record<string, unknown> }> {
  const typed = await post(app, '/api/mm/orders/place', t.token, { portfolioId: t.portfolioId, ...body });
  if (typed.status !== 200) return { typed, relay: typed, signed: {} };
  const signed = await signServed(t.account, typed.body.typedData);
  const relay = await post(app, '/api/mm/orders/place', t.token, signed);
  return { typed, relay, signed };
}
