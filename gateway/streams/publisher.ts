/**
 * Venue events -> topics. Runs as a command-pipeline listener, so it sees every durable
 * command's events once, in sequence order (gateway/commandPipeline.ts step 5).
 *
 * - Depth deltas, trades, index prices, RFQ events, fills, positions and order updates are
 *   published as they come: each is serialised once per update and fanned out by uWS.
 *   The read models have folded the events already (the book a depth snapshot is taken
 *   from stands at the delta's seq: readModels/marketData.ts).
 * - Tickers and portfolio risk are coalesced per event-loop turn: a burst of commands on a
 *   series sends its ticker once, computed after the burst (and from the read model's
 *   cache, so usually without serialising at all); a portfolio's figures are sent once per
 *   turn from the accounts fold (the engine emits a portfolio event for every change,
 *   oracle moves of an exposed account included).
 * Nothing is built for a topic without subscribers.
 */
import type { Hex, VenueEvent } from '../../engine/index.ts';
import type { ReadModels } from '../readModels/readModels.ts';
import type { Hub } from './hub.ts';
import { accountTopic, indexChannelName, LIQUIDATIONS_CHANNEL, RFQ_CHANNEL, RFQ_MM_TOPIC, seriesChannelName, type AccountChannelKind, type SeriesChannelKind } from './channels.ts';
import * as payloads from './payloads.ts';

/** A data frame around an already serialised payload: the payload is never re-serialised per channel. */
export function frame(channel: string, dataJson: string): string {
  return `{"channel":${JSON.stringify(channel)},"data":${dataJson}}`;
}

/** A series' symbol and its channels' names, current and earlier form. */
type SeriesNames = { readonly symbol: string } & { readonly [K in SeriesChannelKind]: readonly [current: string, earlier: string] };

/** Wallets whose topic names are kept; beyond it the cache starts over (names are cheap to rebuild). */
const MAX_CACHED_WALLETS = 100_000;

export type PublisherHooks = {
  /** A wallet lost its MMM status: its RFQ sockets must go. */
  onMmmRevoked(address: string): void;
};

/** A batch's change as the relayer reports it (included) or the engine records it (final, failed). */
export type BatchStatus = { readonly batch: number; readonly relayStatus: 'included' | 'final' | 'failed'; readonly relayTx: Hex | null; readonly tradeIds: readonly string[]; readonly reason: string | null };

/** Trades whose owners the publisher remembers until their batch is final (beyond it the oldest are let go: their frames are not sent). */
const MAX_UNSETTLED_TRADES = 500_000;

type TradeSides = { readonly maker: string; readonly taker: string; readonly makerOrderId: Hex | null; readonly takerOrderId: Hex | null };

export class Publisher {
  private readonly tickers = new Set<Hex>();
  private readonly portfolios = new Map<string, { owner: string; portfolioId: number }>();
  /**
   * Topic names, built once per series and per wallet: every command's events name them
   * (mostly to find that nobody listens), and building them each time was a string
   * allocation per event.
   */
  private readonly seriesNames = new Map<Hex, SeriesNames>();
  private readonly accountTopics = new Map<string, Readonly<Record<AccountChannelKind, string>>>();
  /** With a settlement chain: each trade not yet final, by id, for `account@settlement` (docs/streams.md). */
  private readonly unsettled = new Map<string, TradeSides>();

  constructor(
    /** The read models, folded before this publisher sees a command's events: every payload reads them. */
    private readonly reads: ReadModels,
    private readonly hub: Hub,
    private readonly hooks: PublisherHooks,
    /** Trades settle on a chain (CHAIN other than none): fills carry `relayStatus` and account@settlement follows them. */
    private readonly settlement = false,
  ) {
    hub.onTurnEnd(() => this.flush());
  }

  /**
   * A batch included, final or refused: each wallet with trades in it gets one
   * `account@settlement` frame naming its trades and the orders they filled.
   */
  onBatchStatus(b: BatchStatus): void {
    if (!this.settlement) return;
    const byOwner = new Map<string, { tradeIds: string[]; orderIds: Set<Hex> }>();
    const add = (owner: string, tradeId: string, orderId: Hex | null) => {
      let o = byOwner.get(owner);
      if (o === undefined) byOwner.set(owner, (o = { tradeIds: [], orderIds: new Set() }));
      if (o.tradeIds[o.tradeIds.length - 1] !== tradeId) o.tradeIds.push(tradeId);
      if (orderId !== null) o.orderIds.add(orderId);
    };
    for (const id of b.tradeIds) {
      const t = this.unsettled.get(id);
      if (t === undefined) continue;
      if (b.relayStatus !== 'included') this.unsettled.delete(id);
      add(t.taker, id, t.takerOrderId);
      add(t.maker, id, t.makerOrderId);
    }
    const ts = this.reads.ts;
    for (const [owner, o] of byOwner) {
      this.accountPublish(owner, 'settlement', () => payloads.settlementUpdate({ batch: b.batch, relayStatus: b.relayStatus, relayTx: b.relayTx, tradeIds: o.tradeIds, orderIds: [...o.orderIds], reason: b.reason }, ts));
    }
  }

  onEvents(events: readonly VenueEvent[]): void {
    if (events.length === 0) return;
    for (const e of events) this.onEvent(e);
    if (this.tickers.size > 0 || this.portfolios.size > 0) this.hub.endTurn();
  }

  private namesOf(seriesId: Hex): SeriesNames {
    const cached = this.seriesNames.get(seriesId);
    if (cached !== undefined) return cached;
    const spec = this.reads.catalog.series.get(seriesId);
    const symbol = spec?.symbol ?? seriesId;
    const both = (kind: SeriesChannelKind) => [seriesChannelName(symbol, kind), seriesChannelName(symbol, kind, true)] as const;
    const names: SeriesNames = { symbol, depth: both('depth'), ticker: both('ticker'), trades: both('trades') };
    // A series' symbol never changes; an unknown id is not remembered.
    if (spec !== undefined) this.seriesNames.set(seriesId, names);
    return names;
  }

  private symbolOf(seriesId: Hex): string {
    return this.namesOf(seriesId).symbol;
  }

  private accountTopic(owner: string, kind: AccountChannelKind): string {
    let topics = this.accountTopics.get(owner);
    if (topics === undefined) {
      if (this.accountTopics.size >= MAX_CACHED_WALLETS) this.accountTopics.clear();
      topics = { fills: accountTopic(owner, 'fills'), positions: accountTopic(owner, 'positions'), portfolios: accountTopic(owner, 'portfolios'), orders: accountTopic(owner, 'orders'), mmp: accountTopic(owner, 'mmp'), liquidations: accountTopic(owner, 'liquidations'), settlement: accountTopic(owner, 'settlement') };
      this.accountTopics.set(owner, topics);
    }
    return topics[kind];
  }

  /** Publish one payload on a series channel and its earlier-form alias, serialising only if someone listens. */
  private seriesPublish(seriesId: Hex, kind: SeriesChannelKind, build: () => unknown): void {
    const [current, earlier] = this.namesOf(seriesId)[kind];
    const a = this.hub.hasSubscribers(current);
    const b = this.hub.hasSubscribers(earlier);
    if (!a && !b) return;
    const json = JSON.stringify(build());
    if (a) this.hub.publish(current, frame(current, json), 'public');
    if (b) this.hub.publish(earlier, frame(earlier, json), 'public');
  }

  private accountPublish(owner: string, kind: AccountChannelKind, build: () => unknown): void {
    const topic = this.accountTopic(owner, kind);
    if (!this.hub.hasSubscribers(topic)) return;
    this.hub.publish(topic, frame(`account@${kind}`, JSON.stringify(build())), 'private');
  }

  private onEvent(e: VenueEvent): void {
    switch (e.type) {
      case 'depth':
        this.seriesPublish(e.seriesId, 'depth', () => payloads.depthDelta(e));
        this.tickers.add(e.seriesId); // best bid / ask may have moved
        return;
      case 'trade': {
        const symbol = this.symbolOf(e.seriesId);
        this.seriesPublish(e.seriesId, 'trades', () => payloads.publicTrade(e, symbol));
        const fills = this.hub.hasSubscribers(this.accountTopic(e.maker, 'fills')) || this.hub.hasSubscribers(this.accountTopic(e.taker, 'fills')) ? payloads.fills(e, symbol) : null;
        if (this.settlement) {
          if (this.unsettled.size >= MAX_UNSETTLED_TRADES) this.unsettled.delete(this.unsettled.keys().next().value!);
          this.unsettled.set(e.tradeId, { maker: e.maker, taker: e.taker, makerOrderId: e.makerOrderId, takerOrderId: e.takerOrderId });
        }
        if (fills) {
          const relay = this.settlement ? payloads.PENDING_RELAY : null;
          this.accountPublish(e.taker, 'fills', () => (relay ? { ...fills.taker, ...relay } : fills.taker));
          this.accountPublish(e.maker, 'fills', () => (relay ? { ...fills.maker, ...relay } : fills.maker));
        }
        this.tickers.add(e.seriesId);
        return;
      }
      case 'order':
        this.accountPublish(e.owner, 'orders', () => payloads.orderUpdate(e, this.symbolOf(e.seriesId)));
        return;
      case 'position':
        this.accountPublish(e.owner, 'positions', () => payloads.positionUpdate(this.reads.catalog, e, this.symbolOf(e.seriesId)));
        return;
      case 'portfolio':
        if (this.hub.hasSubscribers(this.accountTopic(e.owner, 'portfolios'))) this.portfolios.set(`${e.owner}|${e.portfolioId}`, { owner: e.owner, portfolioId: e.portfolioId });
        return;
      case 'oracle': {
        const pair = this.reads.catalog.pairs.get(e.pairId);
        if (!pair) return;
        const channel = indexChannelName(pair.symbol);
        if (this.hub.hasSubscribers(channel)) this.hub.publish(channel, frame(channel, JSON.stringify(payloads.indexUpdate(e, pair.symbol))), 'public');
        // Marks moved: every ticker of the pair and the risk of watched portfolios holding it.
        for (const s of this.reads.catalog.series.values()) if (s.pairId === e.pairId && !s.settled) this.tickers.add(s.seriesId);
        // Portfolios holding the pair get their own portfolio events from the engine.
        return;
      }
      case 'series_settled':
        this.tickers.add(e.seriesId);
        return;
      case 'rfq_created':
        if (this.hub.hasSubscribers(RFQ_CHANNEL)) this.hub.publish(RFQ_CHANNEL, frame(RFQ_CHANNEL, JSON.stringify(payloads.rfqPublic(e))), 'public');
        if (this.hub.hasSubscribers(RFQ_MM_TOPIC)) this.hub.publish(RFQ_MM_TOPIC, JSON.stringify(payloads.rfqRequestMessage(this.reads.catalog, e)), 'rfq');
        return;
      case 'rfq_resolved':
        if (this.hub.hasSubscribers(RFQ_CHANNEL)) this.hub.publish(RFQ_CHANNEL, frame(RFQ_CHANNEL, JSON.stringify(payloads.rfqPublic(e))), 'public');
        if (this.hub.hasSubscribers(RFQ_MM_TOPIC)) this.hub.publish(RFQ_MM_TOPIC, JSON.stringify(payloads.rfqResolvedMessage(e)), 'rfq');
        return;
      case 'liquidation':
        this.accountPublish(e.owner, 'liquidations', () => payloads.liquidationUpdate(e));
        if (this.hub.hasSubscribers(LIQUIDATIONS_CHANNEL)) for (const c of payloads.liquidationCloses(e)) this.hub.publish(LIQUIDATIONS_CHANNEL, frame(LIQUIDATIONS_CHANNEL, JSON.stringify(c)), 'public');
        return;
      case 'chain_event': {
        const ev = e.event;
        if ((ev.kind === 'relay_confirmed' || ev.kind === 'relay_failed') && ev.batch !== undefined && e.refused === null) {
          this.onBatchStatus({ batch: ev.batch, relayStatus: ev.kind === 'relay_confirmed' ? 'final' : 'failed', relayTx: ev.txHash, tradeIds: ev.tradeIds ?? [], reason: ev.reason });
        }
        return;
      }
      case 'mmm':
        if (!e.isMmm) this.hooks.onMmmRevoked(e.address);
        return;
      case 'mmp':
        // Trips and unfreezes only: the fold marks the command that changed the frozen state.
        if (this.reads.mmp.get(e.owner, e.pairId)?.transitionSeq === e.seq) this.accountPublish(e.owner, 'mmp', () => payloads.mmpUpdate(e));
        return;
      default:
        return;
    }
  }

  /** End of turn: coalesced tickers and portfolio risk. */
  private flush(): void {
    if (this.tickers.size > 0) {
      const tickers = [...this.tickers];
      this.tickers.clear();
      for (const seriesId of tickers) {
        const s = this.reads.catalog.series.get(seriesId);
        if (!s) continue;
        const [current, earlier] = this.namesOf(seriesId).ticker;
        const a = this.hub.hasSubscribers(current);
        const b = this.hub.hasSubscribers(earlier);
        if (!a && !b) continue;
        const json = this.reads.market.tickerJson(s);
        if (a) this.hub.publish(current, frame(current, json), 'public');
        if (b) this.hub.publish(earlier, frame(earlier, json), 'public');
      }
    }
    if (this.portfolios.size > 0) {
      const due = [...this.portfolios.values()];
      this.portfolios.clear();
      const now = this.reads.ts;
      for (const p of due) {
        if (!this.hub.hasSubscribers(this.accountTopic(p.owner, 'portfolios'))) continue;
        const figures = this.reads.accounts.portfolio(p.owner, p.portfolioId);
        if (figures) this.accountPublish(p.owner, 'portfolios', () => payloads.portfolioUpdate(figures, now));
      }
    }
  }
}
