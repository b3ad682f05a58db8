/**
 * The streams' part of the AsyncAPI 3.0 document served at `/asyncapi/json`: the three
 * servers (one per WebSocket path) and every channel with every message, from the
 * schemas the server's frames are tested against (schemas.ts). `send` messages are what
 * the server sends; `receive` what it accepts.
 */
import type { AsyncApiRegistry, MessageDefinition } from '../http/asyncapi.ts';
import type { AppConfig } from '../config.ts';
import * as S from './schemas.ts';
import { orderOperationSchemas } from '../orders/orderSchemas.ts';
import { orderMethodRoutes, orderMethods } from './orderMethods.ts';

const SYMBOL_PATTERN = '^[A-Za-z0-9_.:-]+';
const symbolParam = { symbol: 'a series: canonical symbol (BTC-82000-C-1767254400), user-facing symbol (BTC-01JAN26-82000-C) or seriesId; case-insensitive' };

function data(channelPattern: string, description: string, payload: Parameters<typeof S.dataFrame>[1], summary: string): MessageDefinition {
  return { summary, payload: S.dataFrame(S.channelString(channelPattern, description), payload) };
}

export function registerStreamsAsyncApi(registry: AsyncApiRegistry, config: Pick<AppConfig, 'host' | 'port'>): void {
  const host = `${config.host}:${config.port}`;
  registry.addServer('public', { host, protocol: 'ws', pathname: '/ws/public', description: 'Public market data (no authentication). Channels: depth, ticker, trades, index, rfq, liquidations, the earlier-form aliases, and journal on a venue that publishes it.' });
  registry.addServer('private', { host, protocol: 'ws', pathname: '/ws/private', description: 'Private account stream: the first message must be AUTH. Channels: account@fills, account@positions, account@portfolios, account@orders, account@mmp, account@liquidations, account@settlement; order entry (PLACE, REPLACE, CANCEL, PLACE_BATCH, CANCEL_BATCH, REPLACE_BATCH) with scope trade.' });
  registry.addServer('monitor', { host, protocol: 'ws', pathname: '/ws/monitor', description: 'Admin monitoring stream: AUTH as on /ws/private with an admin wallet (a login session, or an API key with scope admin). Channels: venue@health, venue@alerts.' });
  registry.addServer('rfqMm', { host, protocol: 'ws', pathname: '/ws/rfq/mm', description: 'RFQ market-maker stream for authorised MMMs: AUTH (frame or Authorization header at connect), then rfq_request in, rfq_response out.' });

  const controlReplies = {
    ack: { summary: 'Acknowledgement of SUBSCRIBE or UNSUBSCRIBE', payload: S.AckReply },
    subscriptions: { summary: 'Answer to LIST_SUBSCRIPTIONS', payload: S.ListReply },
    pong: { summary: 'Answer to PING', payload: S.PongReply },
    error: { summary: 'Error frame (4000 bad request, 4001 unauthenticated, 4003 forbidden, 4004 unknown channel, 4029 rate or subscription limit)', payload: S.ErrorReply },
  };
  registry.addChannel('control', {
    address: 'control',
    servers: ['public', 'private', 'monitor'],
    title: 'Control messages',
    description: 'Sent on the connection itself, on /ws/public and (after AUTH) /ws/private and /ws/monitor. PING and the error frames also apply to /ws/rfq/mm.',
    receives: {
      subscribe: { summary: 'SUBSCRIBE or UNSUBSCRIBE channels (all or nothing)', payload: S.SubscribeMessage },
      listSubscriptions: { summary: 'List the canonical names of the current subscriptions', payload: S.ListMessage },
      ping: { summary: 'Application-level ping', payload: S.PingMessage },
    },
    sends: controlReplies,
  });

  const seriesChannel = (id: string, address: string, title: string, description: string, messages: Record<string, MessageDefinition>) =>
    registry.addChannel(id, { address, servers: ['public'], title, description, parameters: symbolParam, sends: messages });
  const depthMessages = (pattern: string) => ({
    depthSnapshot: data(pattern, 'canonical channel name', S.DepthSnapshot, 'Full book with its seq, sent on every SUBSCRIBE'),
    depthDelta: data(pattern, 'canonical channel name', S.DepthDelta, 'Changed levels; prevSeq is the previous seq'),
  });
  seriesChannel('depth', '{symbol}@depth', 'Order book depth', 'A full snapshot with seq on subscribe, then deltas with seq and prevSeq; size "0" removes a level. A client that sees prevSeq differ from its last seq re-subscribes.', depthMessages(`${SYMBOL_PATTERN}@depth$`));
  seriesChannel('ticker', '{symbol}@ticker', 'Ticker', 'The ticker with Greeks, at most once per series per event-loop turn, when the book, a trade or the oracle changed it.', {
    ticker: data(`${SYMBOL_PATTERN}@ticker$`, 'canonical channel name', S.TickerData, 'Ticker'),
  });
  seriesChannel('trades', '{symbol}@trades', 'Public trades', 'Every trade of the series.', { trade: data(`${SYMBOL_PATTERN}@trades$`, 'canonical channel name', S.TradeData, 'Trade') });
  seriesChannel('orderbookEarlier', 'orderbook:{symbol}', 'Order book (earlier name)', 'Alias of {symbol}@depth; frames carry orderbook:<SYMBOL> as channel.', depthMessages('^orderbook:'));
  seriesChannel('tickerEarlier', 'ticker:{symbol}', 'Ticker (earlier name)', 'Alias of {symbol}@ticker.', { ticker: data('^ticker:', 'canonical channel name', S.TickerData, 'Ticker') });
  seriesChannel('tradesEarlier', 'trades:{symbol}', 'Trades (earlier name)', 'Alias of {symbol}@trades.', { trade: data('^trades:', 'canonical channel name', S.TradeData, 'Trade') });
  registry.addChannel('index', {
    address: '{pair}@index',
    servers: ['public'],
    title: 'Index price',
    description: 'The oracle spot and volatility of a pair, on every oracle update.',
    parameters: { pair: 'pair symbol, lowercase in frames (btc-usdc); case-insensitive when subscribing' },
    sends: { index: data('^[a-z0-9]+-[a-z0-9]+@index$', 'canonical channel name', S.IndexData, 'Index update') },
  });
  registry.addChannel('rfq', {
    address: 'global@rfq',
    servers: ['public'],
    title: 'RFQ auctions',
    description: 'An auction was created (rfq_created) or ended (rfq_resolved: filled, expired or cancelled).',
    sends: {
      rfqCreated: data('^global@rfq$', 'global@rfq', S.RfqCreatedData, 'Auction created'),
      rfqResolved: data('^global@rfq$', 'global@rfq', S.RfqResolvedData, 'Auction ended'),
    },
  });
  registry.addChannel('liquidations', {
    address: 'global@liquidations',
    servers: ['public'],
    title: 'Liquidations',
    description: 'Every close of a liquidation (a fill against the book, or the insurance fund taking over at the band edge), one message each, without the owner.',
    sends: { liquidationClose: data('^global@liquidations$', 'global@liquidations', S.GlobalLiquidationData, 'A liquidation close') },
  });
  registry.addChannel('journal', {
    address: 'global@journal',
    servers: ['public'],
    title: 'The committed journal',
    description:
      'Only on a venue with PUBLIC_JOURNAL=1 (otherwise SUBSCRIBE answers 4004): every command as it commits, in seq order, the entry GET /api/journal pages (its frame is what `npm run audit` replays, docs/chain.md "The audit"). A follower subscribes first, pages GET /api/journal from where it stands up to the first seq the channel sent, and drops what it already has.',
    sends: { journalEntry: data('^global@journal$', 'global@journal', S.JournalEntryData, 'A committed command') },
  });

  registry.addChannel('auth', {
    address: 'auth',
    servers: ['private', 'rfqMm', 'monitor'],
    title: 'Authentication',
    description:
      'On /ws/private, /ws/rfq/mm and /ws/monitor the first message must be AUTH; anything else, or bad credentials, gets AUTH_FAILED and the socket is closed with 4001 (4003 when the credentials are valid but lack a scope or MMM membership). On /ws/monitor valid credentials of anyone but an admin wallet (or an admin\'s API key without scope admin) get the error frame { error: { code: 4003, msg: "Admin access required for monitoring stream" } } instead, and the socket is closed with 4003.',
    receives: {
      authToken: { summary: 'AUTH with the bearer token of a SIWE login', payload: S.AuthTokenMessage },
      authApiKey: { summary: 'AUTH with an API key signed like the X-API-* headers', payload: S.AuthApiKeyMessage },
    },
    sends: {
      authSuccess: { summary: 'Authenticated', payload: S.AuthSuccess },
      authFailed: { summary: 'Refused; the socket is closed next', payload: S.AuthFailed },
    },
  });
  const receives: Record<string, MessageDefinition> = {};
  const sends: Record<string, MessageDefinition> = {};
  for (const [method, op] of Object.entries(orderMethods)) {
    const route = orderMethodRoutes[op];
    const name = op.charAt(0).toLowerCase() + op.slice(1);
    receives[name] = { summary: `${method}: ${route} over the socket`, payload: S.orderMethodMessage(method, orderOperationSchemas[op].body, route) };
    sends[`${name}Result`] = { summary: `Answer to ${method}: the reply of ${route}`, payload: S.orderMethodResult(orderOperationSchemas[op].reply, route) };
  }
  receives['setCancelOnDisconnect'] = { summary: "SET_CANCEL_ON_DISCONNECT: when this socket closes for any reason but the venue's shutdown, cancel the wallet's open orders placed through it (connection, the default) or all of them (wallet)", payload: S.SetCancelOnDisconnectMessage };
  sends['setCancelOnDisconnectResult'] = { summary: 'Answer to SET_CANCEL_ON_DISCONNECT: the setting in force', payload: S.SetCancelOnDisconnectResult };
  sends['orderError'] = { summary: 'An order method refused, with the REST error code and HTTP status', payload: S.OrderMethodError };
  registry.addChannel('orderEntry', {
    address: 'orders',
    servers: ['private'],
    title: 'Order entry',
    description:
      "After AUTH, /ws/private takes the order routes as methods: {method, params: <the REST body, unsigned or signed>, id} -> {result: <the REST reply>, id} or {error: {code, status, message, details}, id}. " +
      'Same checks, pipeline and replies as REST, answered after the journal commit. Needs scope trade (an API key without it is refused per message, 403 permission_denied). ' +
      "The messages draw on the wallet's orders budget per minute, shared with the REST order routes, not on the connection's control-message limit; over it: resource_exhausted (429) with details.retryAfterMs, and the socket stays open. " +
      'CANCEL_ALL and CANCEL_AFTER are the mass cancel and the dead-man switch (POST /api/mm/orders/cancel-all, cancel-after). SET_CANCEL_ON_DISCONNECT {enabled, scope: connection | wallet} (scope trade) cancels, when the socket closes for any reason but the venue shutting down (client close, network drop, slow-consumer cut), the open orders placed through it or all the wallet\'s (cancelReason disconnect); a restart of the venue cancels nothing.',
    receives,
    sends,
  });
  registry.addChannel('accountFills', {
    address: 'account@fills',
    servers: ['private'],
    title: 'Own fills',
    description: "The caller's fills. As taker: the trader payload (side buy or sell). As maker: the market-maker payload (side 'maker', with direction).",
    sends: {
      traderFill: data('^account@fills$', 'account@fills', S.TraderFill, 'Fill as taker'),
      makerFill: data('^account@fills$', 'account@fills', S.MakerFill, 'Fill as maker'),
    },
  });
  registry.addChannel('accountPositions', {
    address: 'account@positions',
    servers: ['private'],
    title: 'Own positions',
    description: 'A position after each change (fill or settlement).',
    sends: { position: data('^account@positions$', 'account@positions', S.PositionData, 'Position') },
  });
  registry.addChannel('accountPortfolios', {
    address: 'account@portfolios',
    servers: ['private'],
    title: 'Own portfolios',
    description: "A portfolio's cash and risk after a change (cash, fills, orders) and when the oracle moves a pair it holds; at most once per portfolio per event-loop turn.",
    sends: { portfolio: data('^account@portfolios$', 'account@portfolios', S.PortfolioData, 'Portfolio') },
  });
  registry.addChannel('accountOrders', {
    address: 'account@orders',
    servers: ['private'],
    title: 'Own orders',
    description: "Status changes of the caller's orders: open, partial, filled, cancelled, expired.",
    sends: { order: data('^account@orders$', 'account@orders', S.OrderData, 'Order update') },
  });
  registry.addChannel('accountMmp', {
    address: 'account@mmp',
    servers: ['private'],
    title: 'Own market maker protection',
    description: 'Market maker protection tripped (frozen, with the limit and the window that tripped it) or unfroze (by time or a reset) on a pair.',
    sends: { mmp: data('^account@mmp$', 'account@mmp', S.MmpData, 'MMP trip or unfreeze') },
  });
  registry.addChannel('venueHealth', {
    address: 'venue@health',
    servers: ['monitor'],
    title: 'Venue health',
    description: 'Every second: commands per second, journal commit p99 (ms), event-loop lag (ms), open connections per stream, open orders, heap.',
    sends: { health: data('^venue@health$', 'venue@health', S.HealthData, 'Health of the last second') },
  });
  registry.addChannel('venueAlerts', {
    address: 'venue@alerts',
    servers: ['monitor'],
    title: 'Venue alerts',
    description:
      'MMP trips, slow-consumer closes (4008), rate-limit storms (more than MONITOR_RATE_LIMIT_STORM requests refused 429 in a second, default 100), journal errors, recovery at start, bad debt (a bankrupt portfolio deficit the insurance fund could not pay, severity critical); other parts of the venue may raise more kinds. A new subscriber first receives the last alerts kept (up to 50, oldest first; ids tell repeats).',
    sends: { alert: data('^venue@alerts$', 'venue@alerts', S.AlertData, 'An alert') },
  });
  registry.addChannel('accountLiquidations', {
    address: 'account@liquidations',
    servers: ['private'],
    title: 'Own liquidations',
    description: "One of the caller's portfolios was liquidated: the trigger, the cancelled orders, the closes, the fee and any deficit (as GET /api/account/liquidations lists it).",
    sends: { liquidation: data('^account@liquidations$', 'account@liquidations', S.LiquidationData, 'Liquidation') },
  });
  registry.addChannel('accountSettlement', {
    address: 'account@settlement',
    servers: ['private'],
    title: 'Own settlement on chain',
    description:
      "With a settlement chain (CHAIN other than none): a batch holding some of the caller's trades was included in a block, became final (CONFIRMATIONS deep) or was refused by the chain (settlement halted). One frame per batch and wallet, naming the wallet's trades and the orders they filled; fills themselves arrive on account@fills as relayStatus pending. Without a chain nothing is sent.",
    sends: { settlement: data('^account@settlement$', 'account@settlement', S.SettlementData, 'A batch included, final or refused') },
  });
  registry.addChannel('rfqMm', {
    address: 'rfq/mm',
    servers: ['rfqMm'],
    title: 'RFQ market-maker messages',
    description: 'After AUTH an MMM receives rfq_request for every new auction (and for auctions still open when it connects) and rfq_resolved when one ends; it answers with rfq_response.',
    sends: {
      rfqRequest: { summary: 'A taker asks for a quote', payload: S.RfqRequestMessage },
      rfqResolved: { summary: 'An auction ended', payload: S.RfqResolvedMessage },
      rfqResponseAck: { summary: 'The quote was accepted', payload: S.RfqResponseAck },
      error: { summary: 'The rfq_response was refused', payload: S.RfqErrorMessage },
    },
    receives: { rfqResponse: { summary: 'A signed quote for an auction', payload: S.RfqResponseMessage } },
  });
}
