/**
 * Putting the contracts on a chain (docs/chain.md "Operations"), two ways:
 *
 * - `installContracts` for anvil (the embedded mode): each contract's runtime code, computed by
 *   an `eth_call` of its init code (no `to`: anvil runs the constructor and returns the code it
 *   would deploy, immutables filled in), is set with `anvil_setCode` at the address the venue
 *   publishes, the last 20 bytes of keccak256("<SERVICE_NAME>:<chainId>:<name>"). No contract
 *   depends on storage its constructor writes, so the code alone is the contract. Idempotent: a
 *   target already holding exactly that code is left alone; one holding other code is an error.
 * - `deployContracts` for a real chain: CREATE transactions from the deployer, every
 *   cross-reference the predicted CREATE address of its target, domains on the contracts' own
 *   addresses.
 */
import {
  createPublicClient,
  createWalletClient,
  encodeDeployData,
  getAddress,
  getContractAddress,
  http,
  keccak256,
  toHex,
  type Abi,
  type Account,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { abis, bytecodeOf, type ArtifactName } from './artifacts.ts';
import { INSURANCE_FUND_OWNER } from '../engine/actors/insuranceFund.ts';

/** The venue's names of its contracts (gateway/config.ts `contractNames`). */
export const CONTRACT_NAMES = ['oracle', 'quoter', 'collateralToken', 'positionManager', 'seriesRegistry', 'collateralVault', 'orderBook', 'rfq'] as const;
export type ContractKey = (typeof CONTRACT_NAMES)[number];
export type ContractAddresses = Record<ContractKey, Address>;

const ARTIFACT: Record<ContractKey, ArtifactName> = {
  oracle: 'Oracle',
  quoter: 'Quoter',
  collateralToken: 'MockCollateralToken',
  positionManager: 'PositionManager',
  seriesRegistry: 'SeriesRegistry',
  collateralVault: 'CollateralVault',
  orderBook: 'OrderBook',
  rfq: 'Rfq',
};

/** The fee cap per fill (engine/config.ts takerFeeCapRate): 12.5% of the premium, WAD. */
export const DEFAULT_FEE_CAP_RATE = 125n * 10n ** 15n;

export type ContractOptions = {
  serviceName: string;
  chainId: number;
  relayer: Address;
  oracleSigner: Address;
  /** Whether the collateral is the open-mint test token (MINT items allowed). */
  faucet: boolean;
  feeCapRate?: bigint;
  /** A real collateral token: no mock is deployed and `faucet` must be false. */
  collateralToken?: Address;
  /** Seconds after which anyone may execute a forced withdrawal the venue did not take in (FORCED_ACTION_TIMEOUT_S). */
  forcedActionTimeout?: number;
};

/** FORCED_ACTION_TIMEOUT_S's default: a day. */
export const DEFAULT_FORCED_ACTION_TIMEOUT_S = 86_400;

export type Deployment = { chainId: number; addresses: ContractAddresses; deploymentBlock: bigint };

/** The addresses the venue publishes: the last 20 bytes of keccak256("<serviceName>:<chainId>:<name>"), EIP-55. */
export function publishedAddresses(serviceName: string, chainId: number): ContractAddresses {
  const out = {} as ContractAddresses;
  for (const name of CONTRACT_NAMES) out[name] = getAddress(`0x${keccak256(toHex(`${serviceName}:${chainId}:${name}`)).slice(26)}`);
  return out;
}

/**
 * Each contract's init code with its constructor arguments: `addresses` are where the others
 * live, `domains` whether the EIP-712 domains name those addresses (true) or the contract's own
 * CREATE address (false: domainAddress 0).
 */
export function initCodes(opts: ContractOptions, addresses: ContractAddresses, domains: boolean): Partial<Record<ContractKey, Hex>> {
  if (opts.collateralToken !== undefined && opts.faucet) throw new Error('faucet: a real collateral token (collateralToken) cannot be the faucet');
  const zero = '0x0000000000000000000000000000000000000000' as Address;
  const domainOf = (k: ContractKey): Address => (domains ? addresses[k] : zero);
  const a = addresses;
  const args: Record<ContractKey, readonly unknown[]> = {
    collateralToken: [],
    oracle: [opts.serviceName, domainOf('oracle'), opts.oracleSigner, a.orderBook],
    seriesRegistry: [a.orderBook, a.oracle],
    quoter: [a.seriesRegistry],
    positionManager: [a.orderBook],
    collateralVault: [a.collateralToken, a.orderBook, a.positionManager, INSURANCE_FUND_OWNER, opts.faucet, BigInt(opts.forcedActionTimeout ?? DEFAULT_FORCED_ACTION_TIMEOUT_S)],
    rfq: [opts.serviceName, domainOf('rfq'), a.orderBook, a.positionManager, a.seriesRegistry],
    orderBook: [
      opts.serviceName, domainOf('orderBook'), opts.relayer, opts.feeCapRate ?? DEFAULT_FEE_CAP_RATE, INSURANCE_FUND_OWNER,
      a.positionManager, a.collateralVault, a.seriesRegistry, a.rfq, a.oracle,
    ],
  };
  const out: Partial<Record<ContractKey, Hex>> = {};
  for (const key of CONTRACT_NAMES) {
    if (key === 'collateralToken' && opts.collateralToken !== undefined) continue;
    const name = ARTIFACT[key];
    out[key] = encodeDeployData({ abi: abis[name] as Abi, bytecode: bytecodeOf(name).bytecode, args: args[key] });
  }
  return out;
}

/**
 * Installs the contracts on an anvil at the published addresses (module comment). Returns the
 * deployment; `deploymentBlock` is the block current when they were installed.
 */
export async function installContracts(rpcUrl: string, opts: ContractOptions): Promise<Deployment> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  const chainId = await client.getChainId();
  if (chainId !== opts.chainId) throw new Error(`installContracts: the chain at ${rpcUrl} has chain id ${chainId}, not CHAIN_ID ${opts.chainId}`);
  const addresses = publishedAddresses(opts.serviceName, opts.chainId);
  if (opts.collateralToken !== undefined) addresses.collateralToken = getAddress(opts.collateralToken);
  const codes = initCodes(opts, addresses, true);
  // Every target checked before any is written: a conflict leaves the chain as it was.
  const missing: [Address, Hex][] = [];
  for (const key of CONTRACT_NAMES) {
    const init = codes[key];
    if (init === undefined) continue;
    const { data: runtime } = await client.call({ data: init });
    if (runtime === undefined || runtime === '0x') throw new Error(`installContracts: the constructor of ${ARTIFACT[key]} returned no code`);
    const target = addresses[key];
    const current = await client.getCode({ address: target });
    if (current === undefined || current === '0x') missing.push([target, runtime]);
    else if (current.toLowerCase() !== runtime.toLowerCase()) throw new Error(`installContracts: ${ARTIFACT[key]} (${key}) at ${target} holds other code than this build's`);
  }
  for (const [target, runtime] of missing) await client.request({ method: 'anvil_setCode' as never, params: [target, runtime] as never });
  return { chainId, addresses, deploymentBlock: await client.getBlockNumber() };
}

export type DeployTarget =
  | { rpcUrl: string; privateKey: Hex }
  | { walletClient: WalletClient; publicClient: PublicClient };

/**
 * Deploys the contracts by CREATE transactions from the deployer, in CONTRACT_NAMES order at
 * consecutive nonces (the mock token skipped when `collateralToken` is given); each waits for
 * its receipt and must land at its predicted address.
 */
export async function deployContracts(target: DeployTarget, opts: ContractOptions): Promise<Deployment> {
  let walletClient: WalletClient;
  let publicClient: PublicClient;
  if ('rpcUrl' in target) {
    publicClient = createPublicClient({ transport: http(target.rpcUrl) });
    walletClient = createWalletClient({ account: privateKeyToAccount(target.privateKey), transport: http(target.rpcUrl) });
  } else {
    ({ walletClient, publicClient } = target);
  }
  const account: Account | undefined = walletClient.account;
  if (account === undefined) throw new Error('deployContracts: the wallet client has no account');
  const chainId = await publicClient.getChainId();
  if (chainId !== opts.chainId) throw new Error(`deployContracts: the chain has chain id ${chainId}, not CHAIN_ID ${opts.chainId}`);
  const chain = { id: chainId } as Chain;
  const order = CONTRACT_NAMES.filter((k) => !(k === 'collateralToken' && opts.collateralToken !== undefined));
  const first = await publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' });
  const addresses = {} as ContractAddresses;
  order.forEach((k, i) => {
    addresses[k] = getContractAddress({ from: account.address, nonce: BigInt(first + i) });
  });
  if (opts.collateralToken !== undefined) addresses.collateralToken = getAddress(opts.collateralToken);
  const codes = initCodes(opts, addresses, false);
  let deploymentBlock: bigint | null = null;
  for (const [i, key] of order.entries()) {
    const hash = await walletClient.sendTransaction({ account, chain, data: codes[key]!, nonce: first + i, to: null });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`deployContracts: deploying ${ARTIFACT[key]} failed (${hash})`);
    if (receipt.contractAddress === null || receipt.contractAddress === undefined || getAddress(receipt.contractAddress) !== addresses[key]) {
      throw new Error(`deployContracts: ${ARTIFACT[key]} landed at ${receipt.contractAddress}, not ${addresses[key]} (was the deployer's nonce used meanwhile?)`);
    }
    deploymentBlock ??= receipt.blockNumber;
  }
  return { chainId, addresses, deploymentBlock: deploymentBlock ?? (await publicClient.getBlockNumber()) };
}
