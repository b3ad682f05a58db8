/**
 * The engine's pre-check refusal of an order entry (engine/precheck.ts) in the words order
 * entry has always answered with: the same code, status and reason as the engine's, but the
 * field named with its place in the request (`orders[2].size`), the limit in human units and
 * the values as the client sent them. The rule itself is the engine's; only the wording is
 * here. A code without a wording of its own answers as the engine's refusal after the journal
 * would (gateway/routes/engineErrors.ts).
 */
import { reject, type Rejection, formatHuman, type Hex } from '../../engine/index.ts';
import type { CancelOrderMessage, PlaceOrderMessage } from '../../workers/eip712/types.ts';
import type { ErrorReply } from '../http/errors.ts';
import { fieldPath } from './fields.ts';
import { orderEngineError, orderNotFound, orderValidation, portfolioNotFound, seriesNotFound } from './orderErrors.ts';

export type PlaceAt = { readonly path: string; readonly signed: boolean; readonly message: PlaceOrderMessage; readonly now: number };
export type CancelAt = { readonly path: string; readonly orderId: Hex; readonly deadline: bigint; readonly now: number };

const RESERVED = 'portfolio 0 is the cash portfolio of a market maker; name one of your trading portfolios (POST /api/portfolio/create)';

function detail(r: Rejection, key: string): bigint {
  return BigInt(String(r.details?.[key] ?? 0));
}

export function placeRefusal(r: Rejection, at: PlaceAt): ErrorReply {
  const field = (name: string) => fieldPath(at.path, name);
  const m = at.message;
  switch (r.code) {
    case 'unknown_series':
      return seriesNotFound(m.seriesId);
    case 'zero_price': {
      const f = field(at.signed ? 'tick' : 'price');
      return orderValidation(`${f} must be greater than 0`, { field: f, reason: 'zero_price' });
    }
    case 'tick_too_large': {
      const f = field(at.signed ? 'tick' : 'price');
      return orderValidation(`${f} is too large: its tick exceeds uint32`, { field: f, reason: 'off_tick_grid' });
    }
    case 'off_size_step': {
      const sizeStep = detail(r, 'sizeStep');
      return orderValidation(`${field('size')} must be a multiple of the size step ${formatHuman(sizeStep, 18)}`, { field: field('size'), reason: 'off_size_step', sizeStep: sizeStep.toString() });
    }
    case 'below_min_size': {
      const minSize = detail(r, 'minSize');
      return orderValidation(`${field('size')} is below the minimum size ${formatHuman(minSize, 18)}`, { field: field('size'), reason: 'below_min_size', minSize: minSize.toString() });
    }
    case 'size_too_large':
      return orderValidation(`${field('size')} exceeds the maximum order size`, { field: field('size'), reason: 'size_too_large' });
    case 'deadline_passed':
      return orderEngineError(reject('deadline_passed', { field: field('deadline'), deadline: m.deadline.toString(), now: at.now }));
    case 'order_expiry_passed':
      return orderEngineError(reject('order_expiry_passed', { field: field('expiry'), expiry: m.expiry, now: at.now }));
    case 'nonce_used':
      return orderEngineError(reject('nonce_used', { field: field('nonce'), nonce: m.nonce.toString() }));
    case 'portfolio_reserved':
      return orderEngineError(reject('portfolio_reserved', { field: field('portfolioId'), portfolioId: 0 }), RESERVED);
    case 'unknown_portfolio':
      return portfolioNotFound(m.portfolioId.toString());
    case 'duplicate_client_order_id':
    case 'post_only_would_take':
    case 'reduce_only_would_increase':
    case 'mmp_frozen': {
      // The rule names its field; the wire names it by its path in the body.
      const name = r.details?.['field'];
      return orderEngineError(reject(r.code, { ...r.details, field: field(typeof name === 'string' ? name : '') }));
    }
    default:
      return orderEngineError(r);
  }
}

export function cancelRefusal(r: Rejection, at: CancelAt): ErrorReply {
  switch (r.code) {
    case 'unknown_order':
    case 'not_owner':
      // Someone else's order answers like an unknown one, so that order ids do not leak.
      return orderNotFound(at.orderId);
    case 'deadline_passed':
      return orderEngineError(reject('deadline_passed', { field: fieldPath(at.path, 'deadline'), deadline: at.deadline.toString(), now: at.now }));
    case 'nonce_used':
      return orderEngineError(reject('nonce_used', { field: fieldPath(at.path, 'nonce'), nonce: String(r.details?.['nonce'] ?? '') }));
    default:
      return orderEngineError(r);
  }
}

type Entry<M> = { readonly path: string; readonly message: M };

/**
 * `duplicate_in_batch` for a request: the entry named is the second one carrying the nonce (cancels
 * first, then places, in request order) or the second cancel naming the order.
 */
export function duplicateRefusal(r: Rejection, cancels: readonly Entry<CancelOrderMessage>[], places: readonly Entry<PlaceOrderMessage>[]): ErrorReply {
  if (r.code !== 'duplicate_in_batch') return orderEngineError(r);
  const nonce = r.details?.['nonce'];
  if (nonce !== undefined) {
    const second = [...cancels, ...places].filter((d) => d.message.nonce >= 0n && d.message.nonce.toString() === nonce)[1];
    const field = fieldPath(second?.path ?? '', 'nonce');
    return orderValidation(`${field}: nonce ${nonce} appears twice in this request`, { field, reason: 'duplicate_in_batch' });
  }
  const orderId = String(r.details?.['orderId'] ?? '');
  const second = cancels.filter((d) => d.message.orderId === orderId)[1];
  const field = fieldPath(second?.path ?? '', 'orderId');
  return orderValidation(`${field}: order ${orderId} is named twice in this request`, { field, reason: 'duplicate_in_batch' });
}
