/**
 * A chain-indexing provider's report of a deposit, checked against the chain itself when the
 * venue settles on one (docs/webhooks.md, docs/chain.md "The indexer"): the transaction must
 * hold the vault's `Deposited` log of that owner, portfolio and amount, `CONFIRMATIONS` deep.
 * The deposit then goes in under the same id the venue's own indexer gives it
 * (`chainId:txHash:logIndex`), with the vault's deposit id, so whoever reports it first credits
 * it and the other finds it taken.
 */
import { createPublicClient, decodeEventLog, getAddress, http, TransactionReceiptNotFoundError, type Address, type Hex } from 'viem';
import { collateralVaultAbi } from './artifacts.ts';

export type FoundDeposit = { readonly id: string; readonly depositId: bigint };
export type DepositLookup = { ok: true; deposit: FoundDeposit } | { ok: false; reason: 'deposit_not_on_chain' | 'deposit_not_final' | 'chain_unreachable'; message: string };

export async function findDeposit(rpcUrl: string, chainId: number, vault: Address, confirmations: number, report: { owner: string; portfolioId: number; amount: bigint; txHash: Hex }): Promise<DepositLookup> {
  const client = createPublicClient({ transport: http(rpcUrl, { retryCount: 1, timeout: 10_000 }), cacheTime: 0 });
  let receipt;
  try {
    receipt = await client.getTransactionReceipt({ hash: report.txHash });
  } catch (e) {
    if (e instanceof TransactionReceiptNotFoundError) return { ok: false, reason: 'deposit_not_on_chain', message: `transaction ${report.txHash} is not on chain ${chainId}` };
    // The node did not answer: nothing is known about the deposit yet (the provider sends it again).
    return { ok: false, reason: 'chain_unreachable', message: `the settlement chain did not answer: ${(e as Error).message.split('\n')[0]}` };
  }
  if (receipt.status !== 'success') return { ok: false, reason: 'deposit_not_on_chain', message: `transaction ${report.txHash} reverted` };
  for (const log of receipt.logs) {
    if (getAddress(log.address) !== vault) continue;
    let d;
    try {
      d = decodeEventLog({ abi: collateralVaultAbi, data: log.data, topics: log.topics });
    } catch {
      continue;
    }
    if (d.eventName !== 'Deposited') continue;
    const a = d.args as { owner: Address; portfolioId: bigint; amount: bigint; depositId: bigint };
    if (getAddress(a.owner) !== getAddress(report.owner) || a.portfolioId !== BigInt(report.portfolioId) || a.amount !== report.amount) continue;
    let head: bigint;
    try {
      head = await client.getBlockNumber();
    } catch (e) {
      return { ok: false, reason: 'chain_unreachable', message: `the settlement chain did not answer: ${(e as Error).message.split('\n')[0]}` };
    }
    if (head - receipt.blockNumber + 1n < BigInt(confirmations)) return { ok: false, reason: 'deposit_not_final', message: `the deposit in ${report.txHash} is not ${confirmations} blocks deep yet` };
    return { ok: true, deposit: { id: `${chainId}:${receipt.transactionHash}:${log.logIndex}`, depositId: a.depositId } };
  }
  return { ok: false, reason: 'deposit_not_on_chain', message: `transaction ${report.txHash} holds no deposit of ${report.amount} into portfolio ${report.portfolioId} of ${report.owner} to the vault ${vault}` };
}
