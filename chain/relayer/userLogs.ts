/**
 * The users' logs the indexer turns into `chain_event` commands (docs/chain.md "The indexer"):
 * the vault's deposits, withdrawal requests and forced withdrawals, the order book's nonce
 * floors and directly sent orders, the RFQ contract's nonce increments and direct fills, in
 * blocks `from..to`, in chain order. The relayer's indexer and the auditor read them so.
 */
import { getAddress, type Address, type Hex, type PublicClient } from 'viem';
import { collateralVaultAbi, orderBookAbi, rfqAbi } from '../artifacts.ts';
import type { ContractAddresses } from '../deploy.ts';
import type { DirectCancel, DirectPlace, UserLog } from './chainClient.ts';

/** The users' logs in blocks `from..to`, in chain order. */
export async function userLogsOf(client: PublicClient, addresses: Pick<ContractAddresses, 'collateralVault' | 'orderBook' | 'rfq'>, from: number, to: number): Promise<UserLog[]> {
  const range = { fromBlock: BigInt(from), toBlock: BigInt(to) };
  const vault = { address: addresses.collateralVault, abi: collateralVaultAbi, ...range } as const;
  const book = { address: addresses.orderBook, abi: orderBookAbi, ...range } as const;
  const [deposits, floors, increments, requests, executions, placed, cancelled, replaced, rfqFills] = await Promise.all([
    client.getContractEvents({ ...vault, eventName: 'Deposited' }),
    client.getContractEvents({ address: addresses.orderBook, abi: orderBookAbi, eventName: 'NonceFloorRequested', ...range }),
    client.getContractEvents({ address: addresses.rfq, abi: rfqAbi, eventName: 'MmmNonceIncrementRequested', ...range }),
    client.getContractEvents({ ...vault, eventName: 'WithdrawalRequested' }),
    client.getContractEvents({ ...vault, eventName: 'ForcedWithdrawalExecuted' }),
    client.getContractEvents({ ...book, eventName: 'OrdersPlacedDirect' }),
    client.getContractEvents({ ...book, eventName: 'OrdersCancelledDirect' }),
    client.getContractEvents({ ...book, eventName: 'OrdersReplacedDirect' }),
    client.getContractEvents({ address: addresses.rfq, abi: rfqAbi, eventName: 'QuoteFillDirect', ...range }),
  ]);
  const at = (l: { transactionHash: Hex; logIndex: number; blockNumber: bigint }) => ({ txHash: l.transactionHash, logIndex: l.logIndex, block: Number(l.blockNumber) });
  const out: UserLog[] = [];
  for (const l of deposits) {
    const a = l.args as { owner: Address; portfolioId: bigint; amount: bigint; depositId: bigint };
    out.push({ ...at(l), kind: 'deposit', owner: getAddress(a.owner), portfolioId: a.portfolioId, amount: a.amount, depositId: a.depositId });
  }
  for (const l of floors) {
    const a = l.args as { owner: Address; floor: bigint };
    out.push({ ...at(l), kind: 'nonce_floor', owner: getAddress(a.owner), floor: a.floor });
  }
  for (const l of increments) {
    const a = l.args as { mmm: Address; nonce: bigint };
    out.push({ ...at(l), kind: 'mmm_nonce_request', mmm: getAddress(a.mmm), nonce: a.nonce });
  }
  for (const l of requests) {
    const a = l.args as { owner: Address; portfolioId: bigint; amount: bigint; requestId: bigint };
    out.push({ ...at(l), kind: 'withdrawal_request', owner: getAddress(a.owner), portfolioId: a.portfolioId, amount: a.amount, requestId: a.requestId });
  }
  for (const l of executions) {
    const a = l.args as { owner: Address; portfolioId: bigint; requestId: bigint; paid: bigint };
    out.push({ ...at(l), kind: 'forced_withdrawal_executed', owner: getAddress(a.owner), portfolioId: a.portfolioId, requestId: a.requestId, paid: a.paid });
  }
  type Place = DirectPlace['order'];
  type Cancel = DirectCancel['cancel'];
  const places = (orders: readonly Place[], ids: readonly Hex[], owners: readonly Address[], sigs: readonly Hex[]): DirectPlace[] => orders.map((order, i) => ({ order, orderId: ids[i]!, owner: getAddress(owners[i]!), signature: sigs[i]! }));
  const cancels = (cs: readonly Cancel[], owners: readonly Address[], sigs: readonly Hex[]): DirectCancel[] => cs.map((cancel, i) => ({ cancel, owner: getAddress(owners[i]!), signature: sigs[i]! }));
  for (const l of placed) {
    const a = l.args as { orders: Place[]; orderIds: Hex[]; owners: Address[]; signatures: Hex[] };
    out.push({ ...at(l), kind: 'direct_orders', cancels: [], places: places(a.orders, a.orderIds, a.owners, a.signatures), replace: false });
  }
  for (const l of cancelled) {
    const a = l.args as { cancels: Cancel[]; owners: Address[]; signatures: Hex[] };
    out.push({ ...at(l), kind: 'direct_orders', cancels: cancels(a.cancels, a.owners, a.signatures), places: [], replace: false });
  }
  for (const l of replaced) {
    const a = l.args as { cancels: Cancel[]; cancelOwners: Address[]; cancelSignatures: Hex[]; places: Place[]; placeIds: Hex[]; placeOwners: Address[]; placeSignatures: Hex[] };
    out.push({ ...at(l), kind: 'direct_orders', cancels: cancels(a.cancels, a.cancelOwners, a.cancelSignatures), places: places(a.places, a.placeIds, a.placeOwners, a.placeSignatures), replace: true });
  }
  for (const l of rfqFills) {
    const a = l.args as { quoteId: Hex; taker: Address; portfolioId: bigint; fillSize: bigint; nonce: bigint; deadline: bigint; takerSignature: Hex };
    out.push({ ...at(l), kind: 'direct_rfq_fill', quoteId: a.quoteId, taker: getAddress(a.taker), portfolioId: a.portfolioId, fillSize: a.fillSize, nonce: a.nonce, deadline: a.deadline, signature: a.takerSignature });
  }
  return out.sort((a, b) => a.block - b.block || a.logIndex - b.logIndex);
}
