/**
 * Cancel on disconnect (extensions.md "Cancel on disconnect and the dead-man switch"): a
 * `/ws/private` socket that asked for it with SET_CANCEL_ON_DISCONNECT has, when it closes for
 * any reason other than the venue's own shutdown (the client closed it, the network dropped,
 * the venue cut a slow consumer), the wallet's open orders placed through it (`connection`)
 * or all of them (`wallet`) cancelled by one engine command (`cancel_all`, reason
 * `disconnect`). The socket's placed orders are the relay replies of its order methods.
 * An edge gateway stopping is not the venue's shutdown (the venue matches on): its sockets
 * cancel as drops, and the edge waits for those commands (`settled`) before it stops forwarding.
 */
import type { ApplyResult, CommandBody, Hex } from '../../engine/index.ts';
import type { Logger } from '../http/log.ts';
import type { Ws } from './hub.ts';

export type DisconnectScope = 'connection' | 'wallet';

/** Placed orders remembered per socket before the closed ones are dropped from the list. */
const PRUNE_AT = 10_000;
/** Closed sockets whose guard was on, remembered for order methods still in flight at the close (oldest dropped first). */
const CLOSED_KEPT = 10_000;

type Guard = { readonly owner: string; enabled: boolean; scope: DisconnectScope; readonly placed: Set<Hex> };

export class CancelOnDisconnect {
  private readonly sockets = new Map<number, Guard>();
  /** Guards of closed sockets that cancelled on close: an order their in-flight methods place later is cancelled too. */
  private readonly closedGuards = new Map<number, Guard>();
  /** Cancel commands submitted and not yet answered. */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly submit: (body: CommandBody) => Promise<ApplyResult>,
    /** Whether an order of `owner` is still open (the order-history fold). */
    private readonly isOpen: (owner: string, orderId: Hex) => boolean,
    private readonly log: Logger,
  ) {}

  private guard(ws: Ws): Guard {
    const d = ws.getUserData();
    let g = this.sockets.get(d.id);
    if (g === undefined) this.sockets.set(d.id, (g = { owner: d.user!.address, enabled: false, scope: 'connection', placed: new Set() }));
    return g;
  }

  set(ws: Ws, enabled: boolean, scope: DisconnectScope): void {
    const g = this.guard(ws);
    g.enabled = enabled;
    g.scope = scope;
  }

  /** Orders the socket's order methods placed (relay replies): the `connection` scope's orders. */
  placed(ws: Ws, orderIds: readonly Hex[]): void {
    const d = ws.getUserData();
    if (d.closed) {
      // Placed by a method that was in flight when the socket closed: it goes as the rest did.
      const g = this.closedGuards.get(d.id);
      if (g !== undefined) this.cancel(g.owner, [...orderIds]);
      return;
    }
    const g = this.guard(ws);
    for (const id of orderIds) g.placed.add(id);
    if (g.placed.size > PRUNE_AT) for (const id of g.placed) if (!this.isOpen(g.owner, id)) g.placed.delete(id);
  }

  /** The socket closed; `shuttingDown`: by the venue's own shutdown, which cancels nothing. */
  closed(ws: Ws, shuttingDown: boolean): void {
    const id = ws.getUserData().id;
    const g = this.sockets.get(id);
    this.sockets.delete(id);
    if (g === undefined || !g.enabled || shuttingDown) return;
    this.closedGuards.set(id, g);
    if (this.closedGuards.size > CLOSED_KEPT) this.closedGuards.delete(this.closedGuards.keys().next().value!);
    const orderIds = g.scope === 'connection' ? [...g.placed].filter((o) => this.isOpen(g.owner, o)) : null;
    if (orderIds !== null && orderIds.length === 0) return;
    this.cancel(g.owner, orderIds);
  }

  /** One engine command: the listed orders of `owner`, or (null) all its open orders. */
  private cancel(owner: string, orderIds: Hex[] | null): void {
    const done: Promise<void> = this.submit({ type: 'cancel_all', owner, scope: orderIds === null ? {} : { orderIds }, reason: 'disconnect' })
      .then(
        (r) => {
          if (!r.ok) this.log.warn('cancel on disconnect refused', { owner, code: r.rejection.code });
        },
        (err: unknown) => this.log.error('cancel on disconnect failed', { owner, error: err instanceof Error ? err.message : String(err) }),
      )
      .finally(() => this.inFlight.delete(done));
    this.inFlight.add(done);
  }

  /** Resolves once every cancel submitted so far is answered (committed, refused or failed). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }
}
