/**
 * The venue from a terminal, on the typed client: `npm run cli -- <command> [flags]`.
 * Output is JSON (one document, or one line per update with `book --watch`); a refusal is
 * printed to stderr with its code and the exit status is 1. docs/client.md lists the commands.
 *
 * Configuration (flags win over the environment):
 *   --url / VENUE_URL            the venue (default http://127.0.0.1:8080)
 *   --key-file / VENUE_KEY_FILE  a file holding the wallet's private key (0x hex): signs in and signs orders
 *   --api-key / VENUE_API_KEY    keyId:secret, signs each request with HMAC instead of a session
 *   --token / VENUE_TOKEN        a bearer token from `login`
 */
import { readFileSync } from 'node:fs';
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { VenueClient, VenueError } from './venueClient.ts';
import { StreamError } from './stream.ts';

type Flags = Record<string, string | true>;

export function parseArgs(argv: readonly string[]): { command: string[]; flags: Flags } {
  const command: string[] = [];
  const flags: Flags = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) {
      command.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) flags[a.slice(2)] = argv[++i]!;
    else flags[a.slice(2)] = true;
  }
  return { command, flags };
}

const usage = `usage: npm run cli -- <command> [flags]
  login                                   sign in (SIWE) with --key-file; prints the token
  markets [--pair BTC-USDC] [--limit 20]  list series
  chain --pair BTC-USDC [--expiry <unix s>]  the option chain of an expiry
  book <symbol|seriesId> [--watch] [--count N] [--levels 10]  the order book; --watch follows the depth stream
  place --series <symbol|seriesId> --side buy|sell --size 1 --price 1.5 [--portfolio 1] [--one-trip] [--client-order-id id] [--tif GTC|IOC|FOK] [--post-only]
  cancel <orderId> | --client-order-id <id>
  cancel-all [--pair BTC-USDC] [--series <seriesId>] [--side buy|sell]
  orders [--status open]                  your orders
  positions [--portfolio 1]               your positions (every portfolio by default)
  portfolio create | portfolio deposit --portfolio 1 --amount <COLLATERAL6>
  keys list | keys create --label bot --scopes read,trade | keys rotate <keyId> | keys revoke <keyId>
config: --url/VENUE_URL, --key-file/VENUE_KEY_FILE, --api-key/VENUE_API_KEY (keyId:secret), --token/VENUE_TOKEN`;

function str(flags: Flags, name: string, env?: string): string | undefined {
  const v = flags[name];
  if (typeof v === 'string') return v;
  return env !== undefined ? process.env[env] : undefined;
}

function need(flags: Flags, name: string): string {
  const v = str(flags, name);
  if (v === undefined) throw new UsageError(`--${name} is required`);
  return v;
}

class UsageError extends Error {}

const print = (v: unknown) => process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);

export async function run(argv: readonly string[]): Promise<void> {
  const { command, flags } = parseArgs(argv);
  const [cmd, sub, arg] = command;
  if (cmd === undefined || cmd === 'help' || flags['help'] === true) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  const keyFile = str(flags, 'key-file', 'VENUE_KEY_FILE');
  const apiKey = str(flags, 'api-key', 'VENUE_API_KEY');
  const token = str(flags, 'token', 'VENUE_TOKEN');
  const [keyId, secret] = apiKey?.split(':') ?? [];
  const venue = new VenueClient({
    baseUrl: str(flags, 'url', 'VENUE_URL') ?? 'http://127.0.0.1:8080',
    ...(keyFile !== undefined ? { account: privateKeyToAccount(readFileSync(keyFile, 'utf8').trim() as Hex) } : {}),
    ...(keyId !== undefined && secret !== undefined ? { apiKey: { keyId, secret } } : {}),
    ...(token !== undefined ? { token } : {}),
  });
  await venue.syncClock();
  /** Credentials for a private command: an API key or token as given, else a SIWE login with the key file. */
  const signedIn = async () => {
    if (venue.apiKey === undefined && venue.token === undefined) {
      if (venue.account === undefined) throw new UsageError('this command needs --key-file, --api-key or --token');
      await venue.login();
    }
  };
  const pairId = async (name: string) => (name.startsWith('0x') ? name : (await venue.call('GET /api/helpers/pair-id', { query: { name } })).pairId);

  switch (cmd) {
    case 'login': {
      if (venue.account === undefined) throw new UsageError('login needs --key-file');
      print({ address: venue.account.address, token: await venue.login() });
      return;
    }
    case 'markets': {
      const pair = str(flags, 'pair');
      print(await venue.call('GET /api/markets', { query: { limit: Number(str(flags, 'limit') ?? 20), settled: false, ...(pair ? { pairId: await pairId(pair) } : {}) } }));
      return;
    }
    case 'chain': {
      const expiry = str(flags, 'expiry');
      print(await venue.call('GET /api/markets/chain', { query: { pairId: await pairId(need(flags, 'pair')), ...(expiry ? { expiry: Number(expiry) } : {}) } }));
      return;
    }
    case 'book':
      return book(venue, sub, flags);
    case 'place': {
      await signedIn();
      const side = need(flags, 'side');
      if (side !== 'buy' && side !== 'sell') throw new UsageError('--side must be buy or sell');
      const tif = str(flags, 'tif');
      const cid = str(flags, 'client-order-id');
      const { seriesId } = await venue.call('GET /api/markets/ticker/:symbol', { params: { symbol: need(flags, 'series') } });
      const order = {
        seriesId,
        isBuy: side === 'buy',
        size: need(flags, 'size'),
        price: need(flags, 'price'),
        portfolioId: Number(str(flags, 'portfolio') ?? 1),
        ...(tif === 'GTC' || tif === 'IOC' || tif === 'FOK' ? { timeInForce: tif as 'GTC' | 'IOC' | 'FOK' } : {}),
        ...(flags['post-only'] === true ? { postOnly: true } : {}),
        ...(cid !== undefined ? { clientOrderId: cid } : {}),
      };
      print(flags['one-trip'] === true ? await venue.placeSigned(order) : await venue.place(order));
      return;
    }
    case 'cancel': {
      await signedIn();
      const cid = str(flags, 'client-order-id');
      if (sub === undefined && cid === undefined) throw new UsageError('cancel needs an orderId or --client-order-id');
      print(await venue.cancel(cid !== undefined ? { clientOrderId: cid } : { orderId: sub! }));
      return;
    }
    case 'cancel-all': {
      await signedIn();
      const pair = str(flags, 'pair');
      const series = str(flags, 'series');
      const side = str(flags, 'side');
      const body = {
        ...(pair ? { pairId: await pairId(pair) } : {}),
        ...(series ? { seriesId: series } : {}),
        ...(side === 'buy' || side === 'sell' ? { side: side as 'buy' | 'sell' } : {}),
      };
      print(await venue.call('POST /api/mm/orders/cancel-all', { body }));
      return;
    }
    case 'orders': {
      await signedIn();
      const status = str(flags, 'status');
      print(await venue.call('GET /api/mm/orders', { query: status ? { status: status as 'open' } : {} }));
      return;
    }
    case 'positions': {
      await signedIn();
      const one = str(flags, 'portfolio');
      const ids = one !== undefined ? [Number(one)] : (await venue.call('GET /api/account/portfolios')).portfolios.map((p) => p.id);
      const out = [];
      for (const id of ids) out.push({ portfolioId: id, positions: (await venue.call('GET /api/account/portfolios/:id/positions', { params: { id } })).positions });
      print(out);
      return;
    }
    case 'portfolio': {
      await signedIn();
      if (sub === 'create') print(await venue.call('POST /api/portfolio/create'));
      else if (sub === 'deposit') print(await venue.call('POST /api/portfolio/deposit', { body: { portfolioId: Number(need(flags, 'portfolio')), amount: need(flags, 'amount') } }));
      else throw new UsageError('portfolio create | portfolio deposit --portfolio N --amount <COLLATERAL6>');
      return;
    }
    case 'keys': {
      await signedIn();
      if (sub === 'list' || sub === undefined) print(await venue.call('GET /api/keys'));
      else if (sub === 'create') print(await venue.call('POST /api/keys', { body: { label: str(flags, 'label') ?? 'cli', scopes: (str(flags, 'scopes') ?? 'read').split(',') as ('read' | 'trade')[] } }));
      else if (sub === 'rotate' && arg !== undefined) print(await venue.call('POST /api/keys/:keyId/rotate', { params: { keyId: arg } }));
      else if (sub === 'revoke' && arg !== undefined) print(await venue.call('DELETE /api/keys/:keyId', { params: { keyId: arg } }));
      else throw new UsageError('keys list | keys create --label L --scopes read,trade | keys rotate <keyId> | keys revoke <keyId>');
      return;
    }
    default:
      throw new UsageError(`unknown command ${cmd}`);
  }
}

/** The order book once (REST), or followed on the depth stream (`--watch`): one JSON line per update, `--count` updates. */
async function book(venue: VenueClient, series: string | undefined, flags: Flags): Promise<void> {
  if (series === undefined) throw new UsageError('book needs a symbol or seriesId');
  const levels = Number(str(flags, 'levels') ?? 10);
  if (flags['watch'] !== true) {
    print(await venue.call('GET /api/markets/orderbook/:symbol', { params: { symbol: series }, query: { depth: levels } }));
    return;
  }
  const count = str(flags, 'count') === undefined ? Infinity : Number(str(flags, 'count'));
  const stream = await venue.stream('/ws/public');
  let printed = 0;
  const done = new Promise<void>((resolve) => {
    const b = stream.depth(series);
    stream.onData((channel, data) => {
      if (!channel.endsWith('@depth') || (data as { type?: string }).type === undefined) return;
      void b.then((book) => {
        if (!book.synced) return;
        process.stdout.write(`${JSON.stringify({ channel, seq: book.seq, bids: book.bids().slice(0, levels), asks: book.asks().slice(0, levels) })}\n`);
        if (++printed >= count) resolve();
      });
    });
  });
  process.once('SIGINT', () => stream.close());
  await done;
  stream.close();
}

const isMain = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) {
  run(process.argv.slice(2)).catch((e: unknown) => {
    if (e instanceof UsageError) process.stderr.write(`${e.message}\n${usage}\n`);
    else if (e instanceof VenueError) process.stderr.write(`${e.code} (${e.status}): ${e.message}${e.details ? ` ${JSON.stringify(e.details)}` : ''}\n`);
    else if (e instanceof StreamError) process.stderr.write(`${e.message}\n`);
    else process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
