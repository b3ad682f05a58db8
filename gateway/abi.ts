/**
 * The order book and RFQ contract ABIs of api.md "Signing": relay calldata is encoded with
 * these (viem `encodeFunctionData`) so that a relayer could submit the same orders to a
 * chain, and `GET /api/markets/contracts/abi` serves them.
 */
const placeOrder = {
  type: 'tuple',
  components: [
    { name: 'seriesId', type: 'bytes32' },
    { name: 'portfolioId', type: 'uint256' },
    { name: 'isBuy', type: 'bool' },
    { name: 'tick', type: 'uint32' },
    { name: 'size', type: 'uint128' },
    { name: 'expiry', type: 'uint32' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

const cancelOrder = {
  type: 'tuple',
  components: [
    { name: 'orderId', type: 'bytes32' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

const rfqQuote = {
  type: 'tuple',
  components: [
    { name: 'mmm', type: 'address' },
    { name: 'taker', type: 'address' },
    { name: 'seriesId', type: 'bytes32' },
    { name: 'takerIsBuying', type: 'bool' },
    { name: 'price', type: 'uint256' },
    { name: 'size', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'quoteExpiry', type: 'uint256' },
    { name: 'pairId', type: 'bytes32' },
    { name: 'strike', type: 'uint256' },
    { name: 'optionExpiry', type: 'uint256' },
    { name: 'isCall', type: 'bool' },
  ],
} as const;

const fillQuote = {
  type: 'tuple',
  components: [
    { name: 'quoteId', type: 'bytes32' },
    { name: 'portfolioId', type: 'uint256' },
    { name: 'fillSize', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

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
