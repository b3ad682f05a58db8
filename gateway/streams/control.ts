/**
 * The control protocol shared by /ws/public and /ws/private (interface.md "Framing",
 * api.md "WebSocket"): SUBSCRIBE, UNSUBSCRIBE, LIST_SUBSCRIPTIONS and PING, their
 * acknowledgements and error frames. Which channel names exist is the caller's business
 * (`resolve`); this file only enforces the framing and the subscription limit.
 */
import type { Hex } from '../../engine/index.ts';
import type { StreamLimits } from './config.ts';
import type { Hub, Ws } from './hub.ts';
import { wsErrorCodes, type ChannelError } from './channels.ts';

export type RequestId = number | string | null;
export type Inbound = { readonly ok: true; readonly msg: Record<string, unknown>; readonly id: RequestId } | { readonly ok: false; readonly error: string };

export type ResolvedChannel = { readonly kind: string; readonly name: string; readonly topic: string; readonly seriesId?: Hex };

export type ControlContext = {
  readonly hub: Hub;
  readonly limits: StreamLimits;
  resolve(ws: Ws, raw: unknown): ResolvedChannel | ChannelError;
  /** After the ack of a SUBSCRIBE naming this channel (new or already held): e.g. a depth snapshot. */
  afterSubscribe?(ws: Ws, channel: ResolvedChannel): void;
  onSubscribed?(ws: Ws, channel: ResolvedChannel): void;
  onUnsubscribed?(ws: Ws, channel: ResolvedChannel): void;
  /** The stream's methods beyond the control ones, named in the unknown-method error (the private stream's order methods). */
  readonly otherMethods?: readonly string[];
};

const controlMethods = ['SUBSCRIBE', 'UNSUBSCRIBE', 'LIST_SUBSCRIPTIONS', 'PING'] as const;

/** Most channels one SUBSCRIBE or UNSUBSCRIBE may name (bounds the work of one message). */
const MAX_PARAMS = 100;

export const replies = {
  ack: (id: RequestId, channels: readonly string[]) => JSON.stringify({ result: null, id, channels }),
  list: (id: RequestId, channels: readonly string[]) => JSON.stringify({ result: channels, id }),
  pong: (id: RequestId) => JSON.stringify({ result: 'PONG', id }),
  error: (code: number, msg: string, id: RequestId) => JSON.stringify({ error: { code, msg }, id }),
};

/** Reads one inbound frame as a JSON object; the client's `id` is kept when it is a number or a short string. */
export function parseInbound(message: ArrayBuffer, isBinary: boolean): Inbound {
  if (isBinary) return { ok: false, error: 'Binary frames are not accepted: send JSON text' };
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(message).toString('utf8'));
  } catch {
    return { ok: false, error: 'Invalid JSON' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, error: 'Messages must be JSON objects' };
  const msg = value as Record<string, unknown>;
  const raw = msg['id'];
  const id: RequestId = (typeof raw === 'number' && Number.isFinite(raw)) || (typeof raw === 'string' && raw.length <= 64) ? raw : null;
  return { ok: true, msg, id };
}

function channelParams(params: unknown): string | readonly unknown[] {
  if (!Array.isArray(params) || params.length === 0) return 'params must be a non-empty array of channel names';
  if (params.length > MAX_PARAMS) return `params may name at most ${MAX_PARAMS} channels`;
  return params;
}

function resolveAll(ctx: ControlContext, ws: Ws, params: readonly unknown[]): ResolvedChannel[] | ChannelError {
  const out = new Map<string, ResolvedChannel>();
  for (const raw of params) {
    const r = ctx.resolve(ws, raw);
    if ('error' in r) return r;
    out.set(r.name, r);
  }
  return [...out.values()];
}

export function handleControl(ctx: ControlContext, ws: Ws, msg: Record<string, unknown>, id: RequestId): void {
  const { hub } = ctx;
  const method = typeof msg['method'] === 'string' ? msg['method'].toUpperCase() : undefined;
  switch (method) {
    case 'PING':
      hub.send(ws, replies.pong(id));
      return;
    case 'LIST_SUBSCRIPTIONS':
      hub.send(ws, replies.list(id, [...ws.getUserData().channels.keys()]));
      return;
    case 'SUBSCRIBE':
      subscribe(ctx, ws, msg['params'], id);
      return;
    case 'UNSUBSCRIBE':
      unsubscribe(ctx, ws, msg['params'], id);
      return;
    default:
      hub.send(ws, replies.error(wsErrorCodes.badRequest, `Unknown method: expected ${[...controlMethods, ...(ctx.otherMethods ?? [])].join(', ')}`, id));
  }
}

/** All or nothing: an unknown name or the limit refuses the whole request. */
function subscribe(ctx: ControlContext, ws: Ws, params: unknown, id: RequestId): void {
  const { hub, limits } = ctx;
  const checked = channelParams(params);
  if (typeof checked === 'string') return hub.send(ws, replies.error(wsErrorCodes.badRequest, checked, id));
  const resolved = resolveAll(ctx, ws, checked);
  if ('error' in resolved) return hub.send(ws, replies.error(resolved.code, resolved.error, id));
  const d = ws.getUserData();
  const added = resolved.filter((c) => !d.channels.has(c.name));
  if (d.channels.size + added.length > limits.maxSubscriptions) {
    return hub.send(ws, replies.error(wsErrorCodes.limit, `subscription limit exceeded (max ${limits.maxSubscriptions})`, id));
  }
  for (const c of added) {
    hub.subscribe(ws, c.topic);
    d.channels.set(c.name, c.topic);
    ctx.onSubscribed?.(ws, c);
  }
  hub.send(ws, replies.ack(id, resolved.map((c) => c.name)));
  // Snapshots go after the ack, in this same synchronous step: no publish can come between
  // the subscription and its snapshot, so the first delta follows the snapshot exactly.
  for (const c of resolved) {
    if (d.closed) return;
    ctx.afterSubscribe?.(ws, c);
  }
}

function unsubscribe(ctx: ControlContext, ws: Ws, params: unknown, id: RequestId): void {
  const { hub } = ctx;
  const checked = channelParams(params);
  if (typeof checked === 'string') return hub.send(ws, replies.error(wsErrorCodes.badRequest, checked, id));
  const resolved = resolveAll(ctx, ws, checked);
  if ('error' in resolved) return hub.send(ws, replies.error(resolved.code, resolved.error, id));
  const d = ws.getUserData();
  for (const c of resolved) {
    if (!d.channels.delete(c.name)) continue;
    hub.unsubscribe(ws, c.topic);
    ctx.onUnsubscribed?.(ws, c);
  }
  hub.send(ws, replies.ack(id, resolved.map((c) => c.name)));
}
