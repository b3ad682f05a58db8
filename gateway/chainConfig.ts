/**
 * The settlement chain's configuration (docs/chain.md "The chain a venue talks to"), checked at
 * start like every variable, each refusal naming the variable:
 *
 * | variable | meaning |
 * |---|---|
 * | `CHAIN` | `embedded` (default on NETWORK=local), `rpc` (default on testnet and mainnet) or `none` (explicitly: no settlement on chain) |
 * | `CHAIN_PORT` | embedded: anvil's port on 127.0.0.1 (default: a free one) |
 * | `CHAIN_BLOCK_TIME_MS` | embedded: interval mining (default 1000) |
 * | `CHAIN_RPC_URL` | rpc: the node the relayer uses (required) |
 * | `CHAIN_PUBLIC_RPC_URL` | what /api/markets/contracts publishes as the chain's RPC (default: the relayer's) |
 * | `RELAYER_PRIVATE_KEY` or `RELAYER_KEY_FILE` | rpc: the relayer's key (required); embedded: a development key derived from SERVICE_NAME and the chain id |
 * | `ORACLE_PRIVATE_KEY` or `ORACLE_KEY_FILE` | rpc: the key that signs settlement prices, not the relayer's (required); embedded: derived likewise |
 * | `DEPLOYMENT_FILE` | rpc: `npm run deploy:contracts`'s output (default `deployments/<CHAIN_ID>.json`) |
 * | `CONFIRMATIONS` | blocks after which a batch is final and a deposit is credited (default 1 embedded, 3 rpc) |
 * | `SETTLE_MAX_FILLS`, `SETTLE_WINDOW_MS`, `SETTLE_MAX_GAS` | a batch's limits: 100 fills, 250 ms, 25,000,000 gas |
 * | `SETTLE_MAX_IN_FLIGHT` | batches sent and not yet included (default 16: on 1-second blocks, 1,600 fills a second) |
 * | `FORCED_ACTION_TIMEOUT_S` | embedded: seconds after which anyone may execute a forced withdrawal the venue did not take in (default 86400; rpc: the deployment's, set by `npm run deploy:contracts`) |
 */
import { existsSync, readFileSync } from 'node:fs';
import { getAddress, isAddress, keccak256, toHex, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

export type ContractKey = 'oracle' | 'quoter' | 'collateralToken' | 'positionManager' | 'seriesRegistry' | 'collateralVault' | 'orderBook' | 'rfq';
const CONTRACT_KEYS: readonly ContractKey[] = ['oracle', 'quoter', 'collateralToken', 'positionManager', 'seriesRegistry', 'collateralVault', 'orderBook', 'rfq'];

export type ChainSettings = {
  readonly mode: 'embedded' | 'rpc';
  readonly rpcUrl: string | null;
  readonly publicRpcUrl: string | null;
  readonly port: number | null;
  readonly blockTimeMs: number;
  readonly relayerKey: Hex;
  readonly oracleKey: Hex;
  /** rpc: the deployment file's addresses and start block. */
  readonly deployment: { readonly file: string; readonly addresses: Readonly<Record<ContractKey, Address>>; readonly deploymentBlock: number } | null;
  readonly confirmations: number;
  readonly maxFills: number;
  readonly windowMs: number;
  readonly maxGas: number;
  readonly maxInFlight: number;
  /** embedded: the collateral vault's forced-withdrawal timeout (seconds). */
  readonly forcedActionTimeout: number;
};

const KEY = /^0x[0-9a-fA-F]{64}$/;
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** A development key: keccak256("<SERVICE_NAME>:<chainId>:<role>") (the embedded chain's only; never on a real one). */
export function developmentKey(serviceName: string, chainId: number, role: 'relayer' | 'oracle'): Hex {
  return keccak256(toHex(`${serviceName}:${chainId}:${role}`));
}

function readKey(env: Record<string, string | undefined>, name: 'RELAYER' | 'ORACLE', errors: string[]): Hex | null {
  const inline = env[`${name}_PRIVATE_KEY`]?.trim();
  const file = env[`${name}_KEY_FILE`]?.trim();
  if (inline && file) {
    errors.push(`${name}_PRIVATE_KEY and ${name}_KEY_FILE are both set: give one`);
    return null;
  }
  let raw = inline || null;
  let from = `${name}_PRIVATE_KEY`;
  if (file) {
    from = `${name}_KEY_FILE`;
    if (!existsSync(file)) {
      errors.push(`${name}_KEY_FILE: ${file} does not exist`);
      return null;
    }
    raw = readFileSync(file, 'utf8').trim();
  }
  if (raw === null) return null;
  const key = (raw.startsWith('0x') ? raw : `0x${raw}`) as Hex;
  if (!KEY.test(key) || BigInt(key) === 0n || BigInt(key) >= SECP256K1_N) {
    errors.push(`${from} must be a secp256k1 private key: 64 hex characters (0x optional)`);
    return null;
  }
  return key;
}

function int(env: Record<string, string | undefined>, name: string, dflt: number, min: number, max: number, errors: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    errors.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
    return dflt;
  }
  return Number(raw);
}

function url(env: Record<string, string | undefined>, name: string, errors: string[]): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  try {
    const u = new URL(raw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
    return raw;
  } catch {
    errors.push(`${name} must be an http(s) URL (got "${raw}")`);
    return null;
  }
}

function readDeployment(file: string, chainId: number, errors: string[]): ChainSettings['deployment'] {
  if (!existsSync(file)) {
    errors.push(`DEPLOYMENT_FILE: ${file} does not exist (write it with npm run deploy:contracts, docs/chain.md "A real chain")`);
    return null;
  }
  let d: { chainId?: unknown; addresses?: Record<string, unknown>; deploymentBlock?: unknown };
  try {
    d = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    errors.push(`DEPLOYMENT_FILE: ${file} is not JSON (${(e as Error).message})`);
    return null;
  }
  if (d.chainId !== chainId) errors.push(`DEPLOYMENT_FILE: ${file} is for chain ${String(d.chainId)}, not CHAIN_ID ${chainId}`);
  const addresses = {} as Record<ContractKey, Address>;
  for (const k of CONTRACT_KEYS) {
    const a = d.addresses?.[k];
    if (typeof a !== 'string' || !isAddress(a, { strict: false })) errors.push(`DEPLOYMENT_FILE: ${file} has no address for ${k}`);
    else addresses[k] = getAddress(a);
  }
  const block = typeof d.deploymentBlock === 'number' ? d.deploymentBlock : typeof d.deploymentBlock === 'string' && /^\d+$/.test(d.deploymentBlock) ? Number(d.deploymentBlock) : NaN;
  if (!Number.isSafeInteger(block) || block < 0) errors.push(`DEPLOYMENT_FILE: ${file} has no deploymentBlock`);
  return { file, addresses, deploymentBlock: block };
}

/** CHAIN and its variables; null with CHAIN=none. Refusals go to `errors`. */
export function parseChainSettings(
  env: Record<string, string | undefined>,
  venue: { readonly network: 'local' | 'testnet' | 'mainnet'; readonly chainId: number; readonly serviceName: string; readonly journal: 'lmdb' | 'nats' },
  errors: string[],
): ChainSettings | null {
  const raw = env['CHAIN'];
  // The relayer follows the LMDB journal in DATA_DIR: a JetStream venue settles with CHAIN=rpc set explicitly once supported.
  const dflt = venue.journal === 'nats' ? 'none' : venue.network === 'local' ? 'embedded' : 'rpc';
  const mode = raw === undefined || raw === '' ? dflt : raw;
  if (mode !== 'embedded' && mode !== 'rpc' && mode !== 'none') {
    errors.push(`CHAIN must be one of embedded, rpc, none (got "${raw}")`);
    return null;
  }
  if (mode === 'none') return null;
  if (venue.journal === 'nats') {
    errors.push(`CHAIN=${mode} needs JOURNAL=lmdb: the relayer follows the journal in DATA_DIR (docs/chain.md); use CHAIN=none with JOURNAL=nats`);
    return null;
  }
  if (mode === 'embedded' && venue.network === 'mainnet') errors.push('CHAIN=embedded is a local devnet: NETWORK=mainnet settles with CHAIN=rpc');
  const confirmations = int(env, 'CONFIRMATIONS', mode === 'embedded' ? 1 : 3, 1, 1000, errors);
  const limits = {
    maxFills: int(env, 'SETTLE_MAX_FILLS', 100, 1, 100, errors),
    windowMs: int(env, 'SETTLE_WINDOW_MS', 250, 10, 60_000, errors),
    maxGas: int(env, 'SETTLE_MAX_GAS', 25_000_000, 1_000_000, 1_000_000_000, errors),
    maxInFlight: int(env, 'SETTLE_MAX_IN_FLIGHT', 16, 1, 64, errors),
  };
  const relayerKey = readKey(env, 'RELAYER', errors);
  const oracleKey = readKey(env, 'ORACLE', errors);
  const publicRpcUrl = url(env, 'CHAIN_PUBLIC_RPC_URL', errors);
  if (mode === 'embedded') {
    const port = int(env, 'CHAIN_PORT', 0, 0, 65535, errors);
    return {
      mode,
      rpcUrl: null,
      publicRpcUrl,
      port: port === 0 ? null : port,
      blockTimeMs: int(env, 'CHAIN_BLOCK_TIME_MS', 1000, 100, 60_000, errors),
      relayerKey: relayerKey ?? developmentKey(venue.serviceName, venue.chainId, 'relayer'),
      oracleKey: oracleKey ?? developmentKey(venue.serviceName, venue.chainId, 'oracle'),
      deployment: null,
      confirmations,
      forcedActionTimeout: int(env, 'FORCED_ACTION_TIMEOUT_S', 86_400, 60, 365 * 86_400, errors),
      ...limits,
    };
  }
  const rpcUrl = url(env, 'CHAIN_RPC_URL', errors);
  if (rpcUrl === null && !errors.some((e) => e.startsWith('CHAIN_RPC_URL'))) errors.push('CHAIN_RPC_URL must be set with CHAIN=rpc: the node the relayer sends settlement batches to');
  if (relayerKey === null && !errors.some((e) => e.startsWith('RELAYER_'))) errors.push('RELAYER_PRIVATE_KEY (or RELAYER_KEY_FILE) must be set with CHAIN=rpc: the account that pays for settlement');
  if (oracleKey === null && !errors.some((e) => e.startsWith('ORACLE_'))) errors.push('ORACLE_PRIVATE_KEY (or ORACLE_KEY_FILE) must be set with CHAIN=rpc: the key that signs settlement prices');
  if (relayerKey !== null && oracleKey !== null && privateKeyToAccount(relayerKey).address === privateKeyToAccount(oracleKey).address) errors.push('ORACLE_PRIVATE_KEY must not be the relayer\'s key: the oracle contract trusts prices only from a key the relayer does not hold');
  const file = env['DEPLOYMENT_FILE']?.trim() || `deployments/${venue.chainId}.json`;
  const deployment = readDeployment(file, venue.chainId, errors);
  if (rpcUrl === null || relayerKey === null || oracleKey === null || deployment === null) return null;
  return { mode, rpcUrl, publicRpcUrl, port: null, blockTimeMs: 0, relayerKey, oracleKey, deployment, confirmations, forcedActionTimeout: 0, ...limits };
}
