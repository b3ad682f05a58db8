/**
 * Channel names as clients write them, resolved to one canonical name and one uWS topic.
 *
 * Names are case-insensitive; a series may be named by its canonical symbol, its
 * user-facing symbol or its seriesId; `orderbook:`, `ticker:` and `trades:` are the
 * earlier names of `@depth`, `@ticker` and `@trades` (api.md "WebSocket"). Every spelling
 * of a channel lands on the same canonical name, which is the `channel` of its data
 * frames and what LIST_SUBSCRIPTIONS answers. An earlier name stays its own channel
 * (its frames say `orderbook:<SYMBOL>`), so that a client of the earlier form sees the
 * names it knows; the payloads are identical.
 */
import type { Hex } from '../../engine/index.ts';
import type { Catalog, SeriesInfo } from '../readModels/catalog.ts';

export type SeriesChannelKind = 'depth' | 'ticker' | 'trades';
export type AccountChannelKind = 'fills' | 'positions' | 'portfolios' | 'orders' | 'mmp' | 'liquidations' | 'settlement';

export type PublicChannel =
  | { readonly kind: SeriesChannelKind; readonly name: string; readonly topic: string; readonly seriesId: Hex }
  | { readonly kind: 'index'; readonly name: string; readonly topic: string; readonly pairId: Hex }
  | { readonly kind: 'rfq'; readonly name: string; readonly topic: string }
  | { readonly kind: 'liquidations'; readonly name: string; readonly topic: string }
  | { readonly kind: 'journal'; readonly name: string; readonly topic: string };

export type ChannelError = { readonly error: string; readonly code: number };

/** Error codes of error frames (docs/streams.md). */
export const wsErrorCodes = {
  badRequest: 4000,
  unauthenticated: 4001,
  forbidden: 4003,
  unknownChannel: 4004,
  limit: 4029,
} as const;

const accountKinds: readonly AccountChannelKind[] = ['fills', 'positions', 'portfolios', 'orders', 'mmp', 'liquidations', 'settlement'];
const seriesKinds: readonly SeriesChannelKind[] = ['depth', 'ticker', 'trades'];
const earlierPrefix: Readonly<Record<string, SeriesChannelKind>> = { orderbook: 'depth', ticker: 'ticker', trades: 'trades' };
const earlierName: Readonly<Record<SeriesChannelKind, string>> = { depth: 'orderbook', ticker: 'ticker', trades: 'trades' };

export const RFQ_CHANNEL = 'global@rfq';
/** Every liquidation close, without its owner (extensions.md "Liquidation and the insurance fund"). */
export const LIQUIDATIONS_CHANNEL = 'global@liquidations';
/** Every committed command, when the venue publishes its journal (PUBLIC_JOURNAL=1, docs/chain.md "The audit"). */
export const JOURNAL_CHANNEL = 'global@journal';
/** Longest channel name looked at; anything longer is refused without parsing. */
const MAX_NAME = 160;

/** The canonical names of a series' channels: current (`SYMBOL@depth`) and earlier (`orderbook:SYMBOL`). */
export function seriesChannelName(symbol: string, kind: SeriesChannelKind, earlier = false): string {
  return earlier ? `${earlierName[kind]}:${symbol}` : `${symbol}@${kind}`;
}

export function indexChannelName(pairSymbol: string): string {
  return `${pairSymbol.toLowerCase()}@index`;
}

/** uWS topic of a wallet's private channel. Addresses are lowercased so that any casing lands on one topic. */
export function accountTopic(address: string, kind: AccountChannelKind): string {
  return `acct:${address.toLowerCase()}:${kind}`;
}

/** The topic every authenticated market maker on /ws/rfq/mm is subscribed to. */
export const RFQ_MM_TOPIC = 'mm:rfq';

function lookupSeries(catalog: Catalog, text: string): SeriesInfo | null {
  // seriesIds are hex in any case; symbols are matched in their canonical upper case.
  return catalog.find(/^0x[0-9a-f]{64}$/i.test(text) ? text.toLowerCase() : text.toUpperCase());
}

function unknown(name: string, why: string): ChannelError {
  return { code: wsErrorCodes.unknownChannel, error: `Unknown channel "${name}": ${why}` };
}

/** Resolves a public channel name, or explains why it is not one; `global@journal` only when the journal is public. */
export function resolvePublicChannel(catalog: Catalog, raw: unknown, journalPublic = false): PublicChannel | ChannelError {
  if (typeof raw !== 'string' || raw.length === 0) return { code: wsErrorCodes.badRequest, error: 'Channel names must be non-empty strings' };
  const shown = raw.length > MAX_NAME ? `${raw.slice(0, MAX_NAME)}...` : raw;
  if (raw.length > MAX_NAME) return unknown(shown, 'name too long');
  const name = raw.trim().toLowerCase();
  if (name === RFQ_CHANNEL) return { kind: 'rfq', name: RFQ_CHANNEL, topic: RFQ_CHANNEL };
  if (name.startsWith('venue@')) {
    return { code: wsErrorCodes.forbidden, error: `Channel "${shown}" is for admins: connect to /ws/monitor and send AUTH first` };
  }
  if (name === LIQUIDATIONS_CHANNEL) return { kind: 'liquidations', name: LIQUIDATIONS_CHANNEL, topic: LIQUIDATIONS_CHANNEL };
  if (name === JOURNAL_CHANNEL) return journalPublic ? { kind: 'journal', name: JOURNAL_CHANNEL, topic: JOURNAL_CHANNEL } : unknown(shown, 'this venue does not publish its journal (PUBLIC_JOURNAL is off)');
  if (name.startsWith('account@')) {
    return { code: wsErrorCodes.forbidden, error: `Channel "${shown}" is private: connect to /ws/private and send AUTH first` };
  }
  const colon = name.indexOf(':');
  if (colon > 0) {
    const kind = earlierPrefix[name.slice(0, colon)];
    if (kind === undefined) return unknown(shown, 'expected orderbook:, ticker: or trades: before the symbol');
    const series = lookupSeries(catalog, name.slice(colon + 1));
    if (!series) return unknown(shown, 'no such series (use a canonical symbol, a user-facing symbol or a seriesId)');
    const canonical = seriesChannelName(series.symbol, kind, true);
    return { kind, name: canonical, topic: canonical, seriesId: series.seriesId };
  }
  const at = name.lastIndexOf('@');
  if (at <= 0) return unknown(shown, 'expected <symbol>@depth, <symbol>@ticker, <symbol>@trades, <pair>@index, global@rfq or global@liquidations');
  const suffix = name.slice(at + 1);
  const subject = name.slice(0, at);
  if (suffix === 'index') {
    for (const pair of catalog.pairs.values()) {
      if (pair.symbol.toLowerCase() === subject) {
        const canonical = indexChannelName(pair.symbol);
        return { kind: 'index', name: canonical, topic: canonical, pairId: pair.pairId };
      }
    }
    return unknown(shown, 'no such pair (e.g. btc-usdc@index)');
  }
  const kind = seriesKinds.find((k) => k === suffix);
  if (kind === undefined) return unknown(shown, `unknown stream "@${suffix}"`);
  const series = lookupSeries(catalog, subject);
  if (!series) return unknown(shown, 'no such series (use a canonical symbol, a user-facing symbol or a seriesId)');
  const canonical = seriesChannelName(series.symbol, kind);
  return { kind, name: canonical, topic: canonical, seriesId: series.seriesId };
}

export type AccountChannel = { readonly kind: AccountChannelKind; readonly name: string; readonly topic: string };

/** Resolves a private channel name for the authenticated wallet. */
export function resolveAccountChannel(address: string, raw: unknown): AccountChannel | ChannelError {
  if (typeof raw !== 'string' || raw.length === 0) return { code: wsErrorCodes.badRequest, error: 'Channel names must be non-empty strings' };
  const shown = raw.length > MAX_NAME ? `${raw.slice(0, MAX_NAME)}...` : raw;
  const name = raw.trim().toLowerCase();
  if (!name.startsWith('account@')) {
    return { code: wsErrorCodes.unknownChannel, error: `Unknown channel "${shown}" on /ws/private: use account@fills, account@positions, account@portfolios, account@orders, account@mmp, account@liquidations or account@settlement (public channels are on /ws/public)` };
  }
  const kind = accountKinds.find((k) => `account@${k}` === name);
  if (kind === undefined) return unknown(shown, 'expected account@fills, account@positions, account@portfolios, account@orders, account@mmp, account@liquidations or account@settlement');
  return { kind, name: `account@${kind}`, topic: accountTopic(address, kind) };
}

export function isChannelError(x: object): x is ChannelError {
  return 'error' in x;
}
