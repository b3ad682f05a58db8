/**
 * A complete market-making client for this venue (docs/order-entry.md "Quoting safely"), on
 * the typed client (client/, docs/client.md): sign in with Ethereum, protect the quotes
 * (market maker protection, cancel on disconnect, the dead-man switch), then quote over the
 * private WebSocket, signing each order locally so that one message places it (no phase one
 * round trip). Node 20, viem and ws.
 *
 *   const mm = await QuotingClient.connect('http://127.0.0.1:8080', privateKeyToAccount(key));
 *   await mm.protect({ pairId, windowMs: 1000, frozenMs: 5000, qtyLimit: '10', deltaLimit: '0', vegaLimit: '0', tradeCountLimit: 20 });
 *   await mm.cancelOnDisconnect('connection');
 *   mm.heartbeat(15_000);                     // re-arms the dead-man switch every 5 s
 *   const { orderId } = await mm.quote({ seriesId, isBuy: true, price: '120.5', size: '0.5' });
 *   ...
 *   mm.close();                               // the socket's quotes go with it
 */
import type { LocalAccount } from 'viem';
import { VenueClient, type VenueStream } from '../client/index.ts';
import type { BodyOf } from '../client/routes.ts';

export { toUnits } from '../client/index.ts';

export type Mmp = BodyOf<'POST /api/mm/mmp'>;
export type Quote = { seriesId: string; isBuy: boolean; price: string; size: string; portfolioId?: number; postOnly?: boolean };

export class QuotingClient {
  private beat: NodeJS.Timeout | null = null;

  private constructor(
    readonly venue: VenueClient,
    private readonly stream: VenueStream,
  ) {}

  /** Private channel frames (account@fills, account@orders, account@mmp, ...). */
  set onData(h: (channel: string, data: any) => void) {
    this.stream.onData(h);
  }

  get token(): string {
    return this.venue.token!;
  }

  /** Sign in (SIWE, the venue's clock for Issued At) and open and authenticate /ws/private. */
  static async connect(baseUrl: string, account: LocalAccount): Promise<QuotingClient> {
    const venue = new VenueClient({ baseUrl, account });
    await venue.login();
    return new QuotingClient(venue, await venue.stream('/ws/private'));
  }

  /** One method over the socket: its REST reply, or throws with the REST error. */
  call(method: string, params: unknown): Promise<any> {
    return this.stream.call(method, params);
  }

  /** Market maker protection on a pair (POST /api/mm/mmp). */
  protect(config: Mmp) {
    return this.venue.call('POST /api/mm/mmp', { body: config });
  }

  /** When this socket drops, cancel its quotes (`connection`) or all the wallet's (`wallet`). */
  cancelOnDisconnect(scope: 'connection' | 'wallet') {
    return this.call('SET_CANCEL_ON_DISCONNECT', { enabled: true, scope });
  }

  /** Arm (or move) the dead-man switch once: every open order goes `timeoutMs` from now unless re-armed. */
  rearm(timeoutMs: number) {
    return this.call('CANCEL_AFTER', { timeoutMs });
  }

  /** Keep the dead-man switch armed while this process is healthy: re-arms every third of `timeoutMs`. */
  heartbeat(timeoutMs: number): void {
    this.stopHeartbeat();
    void this.rearm(timeoutMs);
    this.beat = setInterval(() => void this.rearm(timeoutMs).catch(() => {}), Math.floor(timeoutMs / 3));
  }

  stopHeartbeat(): void {
    if (this.beat !== null) clearInterval(this.beat);
    this.beat = null;
  }

  /**
   * Place an `mmp` quote in one message: the PlaceOrder is built and signed by the client
   * (tick from the price on the pair's grid, WAD size, a local nonce, a deadline a minute out
   * on the venue's clock), so the venue checks and applies it at once.
   */
  async quote(q: Quote): Promise<{ orderId: string; result: any }> {
    const body = await this.venue.signPlace({ ...q, portfolioId: q.portfolioId ?? 0, deadlineSec: 60, mmp: true, ...(q.postOnly ? { postOnly: true } : {}) });
    const result = await this.call('PLACE', body);
    return { orderId: result.orders[0].orderId as string, result };
  }

  /** Pull every quote at once (one engine command). */
  pullAll(scope: Record<string, unknown> = {}) {
    return this.call('CANCEL_ALL', scope);
  }

  close(): void {
    this.stopHeartbeat();
    this.stream.close();
  }
}
