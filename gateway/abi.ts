/**
 * The order book and RFQ contract ABIs of api.md "Signing": relay calldata is encoded with
 * these (viem `encodeFunctionData`) so that a relayer could submit the same orders to a
 * chain, and `GET /api/markets/contracts/abi` serves them.
 */
import { placeOrderTypes, cancelOrderTypes, rfqQuoteTypes, fillQuoteTypes } from '../workers/eip712/types.ts';
// The tuples are the EIP-712 types themselves (same fields, same order): one definition.
const placeOrder = { type: 'tuple', components: placeOrderTypes.PlaceOrder } as const;
const cancelOrder = { type: 'tuple', components: cancelOrderTypes.CancelOrder } as const;
const rfqQuote = { type: 'tuple', components: rfqQuoteTypes.RfqQuote } as const;
const fillQuote = { type: 'tuple', components: fillQuoteTypes.FillQuote } as const;

const fn = <const I extends readonly object[]>(name: string, inputs: I) => ({ type: 'function', name, stateMutability: 'nonpayable', inputs, outputs: [] }) as const;

export const orderBookAbi = [
  fn('placeOrderSigned', [{ ...placeOrder, name: 'order' }, { name: 'signature', type: 'bytes' }]),
  fn('replaceOrderSigned', [{ ...cancelOrder, name: 'cancel' }, { name: 'cancelSignature', type: 'bytes' }, { ...placeOrder, name: 'place' }, { name: 'placeSignature', type: 'bytes' }]),
  fn('batchPlaceOrders', [{ ...placeOrder, type: 'tuple[]', name: 'orders' }, { name: 'signatures', type: 'bytes[]' }]),
  fn('batchCancelOrders', [{ ...cancelOrder, type: 'tuple[]', name: 'cancels' }, { name: 'signatures', type: 'bytes[]' }]),
  fn('batchReplaceOrders', [
    { ...cancelOrder, type: 'tuple[]', name: 'cancels' },
    { name: 'cancelSignatures', type: 'bytes[]' },
    { ...placeOrder, type: 'tuple[]', name: 'places' },
    { name: 'placeSignatures', type: 'bytes[]' },
  ]),
] as const;

export const rfqAbi = [fn('fillQuote', [{ ...rfqQuote, name: 'quote' }, { name: 'mmSignature', type: 'bytes' }, { ...fillQuote, name: 'fill' }, { name: 'takerSignature', type: 'bytes' }])] as const;
