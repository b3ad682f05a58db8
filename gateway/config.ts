/**
 * Configuration from the environment (api.md "Configuration and the embedded default"):
 * every variable has a default that starts a working local venue, and every bad value is
 * refused at start with a message naming the variable.
 */
import { availableParallelism, hostname } from 'node:os';
import { getAddress, keccak256, toHex } from 'viem';
import { parseChainSettings, type ChainSettings } from './chainConfig.ts';
import { defaultVenueConfig, type Address, type Hex, type VenueConfig } from '../engine/index.ts';
import type { RateLimitGroup } from './http/route.ts';
import { defaultRateLimits, type GroupLimits } from './http/rateLimit.ts';

export type Network = 'local' | 'testnet' | 'mainnet';
export type ContractName = 'oracle' | 'quoter' | 'collateralToken' | 'positionManager' | 'seriesRegistry' | 'collateralVault' | 'orderBook' | 'rfq';
export const contractNames: readonly ContractName[] = ['oracle', 'quoter', 'collateralToken', 'positionManager', 'seriesRegistry', 'collateralVault', 'orderBook', 'rfq'];

export type PairConfig = { symbol: string; underlying: string; quote: string; tickDecimals: number; initialSpot: number; volatility: number };

export type AppConfig = {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly serviceName: string;
  readonly network: Network;
  readonly chainId: number;
  /**
   * SIWE_DOMAIN, comma-separated, lowercased host[:port] entries (empty when unset). Required
   * on testnet and mainnet; on local the venue's own listen address is accepted as well
   * (gateway/auth/siweDomains.ts). The request's Host header is never trusted for it.
   */
  readonly siweDomains: readonly string[];
  readonly adminAddresses: ReadonlySet<string>;
  readonly pairs: readonly PairConfig[];
  readonly oracle: 'simulated' | 'manual';
  readonly oracleSeed: number;
  readonly oracleIntervalMs: number;
  readonly clockIntervalMs: number;
  readonly workers: number;
  readonly logLevel: 'error' | 'warn' | 'info';
  readonly snapshotEveryCommands: number;
  readonly snapshotEveryMs: number;
  /**
   * The contract addresses the venue publishes (EIP-712 domains, relay calldata): derived from
   * SERVICE_NAME and the chain id, or, with CHAIN=rpc, those of the deployment file.
   */
  readonly contracts: Readonly<Record<ContractName, Address>>;
  /** CHAIN (docs/chain.md "The chain a venue talks to"): the settlement chain, or null with CHAIN=none. */
  readonly chain: ChainSettings | null;
  /** JOURNAL: 'lmdb' (the embedded default, under DATA_DIR) or 'nats' (a JetStream stream; docs/persistence.md). */
  readonly journal: 'lmdb' | 'nats';
  /** NATS_URL, comma-separated (required with JOURNAL=nats). */
  readonly natsUrls: readonly string[];
  /** NATS_STREAM: the journal's stream (default VENUE_JOURNAL). */
  readonly natsStream: string;
  /** LEASE_TTL_MS: the leader lease's life; a standby takes over this long after the leader stopped renewing. */
  readonly leaseTtlMs: number;
  /** JOURNAL=nats: the leader and a standby compare state hashes at every seq divisible by this (HASH_CHECK_EVERY). */
  readonly hashCheckEvery: number;
  /** NODE_ID: this engine node's name in the lease (default host:pid). */
  readonly nodeId: string;
  /**
   * STORES: 'shared' (default with JOURNAL=nats: sessions, API keys, users, SIWE nonces and the
   * replay window in JetStream KV buckets every node shares) or 'local' (each node's DATA_DIR;
   * the only choice with JOURNAL=lmdb). docs/persistence.md "Shared stores".
   */
  readonly stores: 'shared' | 'local';
  /** KEY_ENCRYPTION_KEY when set (64 hex); required with STORES=shared, the same on every node. */
  readonly keyEncryptionKey: string | null;
  /** PUBLIC_JOURNAL=1: the committed journal and the snapshots are public (/api/journal, global@journal) and never pruned, the genesis snapshot kept (docs/chain.md "The audit"). */
  readonly publicJournal: boolean;
  /** EDGE=1 or ROLE=edge (JOURNAL=nats): an edge gateway that follows the stream, serves reads and forwards writes to the leader (docs/persistence.md). */
  readonly edge: boolean;
  /** Overrides of the rate-limit table (docs/rate-limits.md), from RATE_LIMITS as JSON. */
  readonly rateLimits: Partial<Record<RateLimitGroup, Partial<GroupLimits>>>;
  /**
   * REFERRAL_REBATE_BPS (0..10000, default 1000): the share of a referee's taker fee paid to its
   * referrer. Part of the engine's config, so fixed when the venue's state is first created.
   */
  readonly referralRebateBps: number;
  /** WEBHOOK_SECRET: the HMAC key of the chain webhooks; null = the webhook group answers 503. */
  readonly webhookSecret: string | null;
  /** Liquidation band around the mark and fee to the insurance fund, basis points (engine config; fixed when the venue is created). */
  readonly liquidationBandBps: number;
  readonly liquidationFeeBps: number;
  /** INSURANCE_FUND_SEED (COLLATERAL6): the fund's cash at a local/testnet venue's first start; 0 = none. */
  readonly insuranceFundSeed: bigint;
};

/** Well-known defaults per underlying; other pairs start at 100 with 4 tick decimals. */
const KNOWN: Record<string, { tickDecimals: number; initialSpot: number; volatility: number }> = {
  BTC: { tickDecimals: 2, initialSpot: 100_000, volatility: 0.55 },
  ETH: { tickDecimals: 3, initialSpot: 3_500, volatility: 0.7 },
};

export type ConfigResult = { readonly ok: true; readonly config: AppConfig } | { readonly ok: false; readonly errors: readonly string[] };

export function loadConfig(env: Record<string, string | undefined>): ConfigResult {
  const errors: string[] = [];
  const int = (name: string, dflt: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return dflt;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      errors.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return dflt;
    }
    return Number(raw);
  };
  const oneOf = <T extends string>(name: string, dflt: T, values: readonly T[]): T => {
    const raw = env[name];
    if (raw === undefined || raw === '') return dflt;
    if (!(values as readonly string[]).includes(raw)) {
      errors.push(`${name} must be one of ${values.join(', ')} (got "${raw}")`);
      return dflt;
    }
    return raw as T;
  };

  const port = int('PORT', 8080, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const dataDir = env.DATA_DIR || './data';
  const serviceName = env.SERVICE_NAME || 'Diffusal';
  if (!/^[A-Za-z0-9]{1,32}$/.test(serviceName)) errors.push(`SERVICE_NAME must be 1-32 letters or digits (got "${serviceName}")`);
  const network = oneOf<Network>('NETWORK', 'local', ['local', 'testnet', 'mainnet']);
  const chainId = int('CHAIN_ID', 10143, 1, 2 ** 53 - 1);
  const siweDomains = parseSiweDomains(env.SIWE_DOMAIN, network, errors);

  const adminAddresses = new Set<string>();
  for (const a of (env.ADMIN_ADDRESSES ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    try {
      adminAddresses.add(getAddress(a.toLowerCase()));
    } catch {
      errors.push(`ADMIN_ADDRESSES: "${a}" is not an address`);
    }
  }

  const pairs: PairConfig[] = [];
  for (const symbol of (env.PAIRS || 'BTC-USDC,ETH-USDC').split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([A-Z0-9]{2,10})-([A-Z0-9]{2,10})$/.exec(symbol);
    if (!m) {
      errors.push(`PAIRS: "${symbol}" is not of the form UNDERLYING-QUOTE (uppercase)`);
      continue;
    }
    const known = KNOWN[m[1]!] ?? { tickDecimals: 4, initialSpot: 100, volatility: 0.8 };
    pairs.push({ symbol, underlying: m[1]!, quote: m[2]!, ...known });
  }
  if (pairs.length === 0) errors.push('PAIRS must name at least one pair');
  if (new Set(pairs.map((p) => p.quote)).size > 1) errors.push('PAIRS must all be quoted in the same collateral stablecoin');

  const oracle = oneOf('ORACLE', 'simulated', ['simulated', 'manual'] as const);
  const workers = int('WORKERS', Math.max(1, availableParallelism() - 1), 1, 256);
  const logLevel = oneOf('LOG_LEVEL', 'info', ['error', 'warn', 'info'] as const);

  const rateLimits = parseRateLimits(env.RATE_LIMITS, errors);
  const seedRaw = env.INSURANCE_FUND_SEED;
  let insuranceFundSeed = 1_000_000n * 1_000_000n;
  if (seedRaw !== undefined && seedRaw !== '') {
    if (/^\d{1,30}$/.test(seedRaw)) insuranceFundSeed = BigInt(seedRaw);
    else errors.push(`INSURANCE_FUND_SEED must be a COLLATERAL6 integer string, e.g. 1000000000000 for 1,000,000 USDC (got "${seedRaw}")`);
  }
  const journal = oneOf('JOURNAL', 'lmdb', ['lmdb', 'nats'] as const);
  const natsUrls = (env.NATS_URL ?? '').split(',').map((u) => u.trim()).filter(Boolean);
  for (const u of natsUrls) if (!/^(nats|tls):\/\/[^\s/]+$/.test(u)) errors.push(`NATS_URL: "${u}" is not nats://host:port`);
  if (journal === 'nats' && natsUrls.length === 0) errors.push('NATS_URL must list the NATS servers (nats://host:port, comma-separated) with JOURNAL=nats');
  const natsStream = env.NATS_STREAM || 'VENUE_JOURNAL';
  const edge = env.EDGE === '1' || env.EDGE === 'true' || env.ROLE === 'edge';
  const publicJournal = env.PUBLIC_JOURNAL === '1' || env.PUBLIC_JOURNAL === 'true';
  if (env.PUBLIC_JOURNAL !== undefined && env.PUBLIC_JOURNAL !== '' && !['0', '1', 'true', 'false'].includes(env.PUBLIC_JOURNAL)) errors.push(`PUBLIC_JOURNAL must be 1 or 0 (got "${env.PUBLIC_JOURNAL}")`);
  if (publicJournal && journal === 'nats') errors.push('PUBLIC_JOURNAL=1 needs JOURNAL=lmdb: an audit replays from the genesis snapshot, which a JetStream venue does not keep (docs/chain.md "The audit")');
  if (env.ROLE !== undefined && env.ROLE !== '' && env.ROLE !== 'edge' && env.ROLE !== 'engine') errors.push(`ROLE must be edge or engine (got "${env.ROLE}")`);
  if (edge && journal !== 'nats') errors.push('EDGE=1 (ROLE=edge) needs JOURNAL=nats: an edge follows the JetStream journal');
  const stores = oneOf('STORES', journal === 'nats' ? 'shared' : 'local', ['shared', 'local'] as const);
  const keyEncryptionKey = env.KEY_ENCRYPTION_KEY !== undefined && env.KEY_ENCRYPTION_KEY.trim() !== '' ? env.KEY_ENCRYPTION_KEY.trim() : null;
  if (stores === 'shared' && journal !== 'nats') errors.push('STORES=shared needs JOURNAL=nats: the shared stores are JetStream key-value buckets');
  if (stores === 'shared' && journal === 'nats') {
    if (keyEncryptionKey === null) {
      errors.push('KEY_ENCRYPTION_KEY must be set with JOURNAL=nats (64 hex characters, the same on every node): the API-key secrets in the shared key-value bucket are sealed with it. STORES=local keeps each node\'s stores in its own DATA_DIR instead');
    } else if (!/^[0-9a-fA-F]{64}$/.test(keyEncryptionKey)) {
      errors.push('KEY_ENCRYPTION_KEY must be 64 hex characters (32 bytes)');
    }
  }
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(natsStream)) errors.push(`NATS_STREAM must be 1-64 letters, digits, _ or - (got "${natsStream}")`);
  const chain = parseChainSettings(env, { network, chainId, serviceName, journal }, errors);

  const config: AppConfig = {
    port,
    host,
    dataDir,
    serviceName,
    network,
    chainId,
    siweDomains,
    adminAddresses,
    pairs,
    oracle,
    oracleSeed: int('ORACLE_SEED', 1, 0, 2 ** 31 - 1),
    oracleIntervalMs: int('ORACLE_INTERVAL_MS', 5_000, 100, 3_600_000),
    clockIntervalMs: int('CLOCK_INTERVAL_MS', 1_000, 10, 60_000),
    workers,
    logLevel,
    snapshotEveryCommands: int('SNAPSHOT_EVERY_COMMANDS', 100_000, 1, 2 ** 31 - 1),
    snapshotEveryMs: int('SNAPSHOT_EVERY_MS', 10 * 60_000, 1_000, 2 ** 31 - 1),
    contracts: chain?.deployment?.addresses ?? contractAddresses(serviceName, chainId),
    chain,
    rateLimits,
    referralRebateBps: int('REFERRAL_REBATE_BPS', 1000, 0, 10_000),
    webhookSecret: env.WEBHOOK_SECRET !== undefined && env.WEBHOOK_SECRET !== '' ? env.WEBHOOK_SECRET : null,
    liquidationBandBps: int('LIQUIDATION_BAND_BPS', 1000, 1, 10_000),
    liquidationFeeBps: int('LIQUIDATION_FEE_BPS', 50, 0, 10_000),
    insuranceFundSeed,
    journal,
    natsUrls,
    natsStream,
    leaseTtlMs: int('LEASE_TTL_MS', 1_500, 300, 60_000),
    hashCheckEvery: int('HASH_CHECK_EVERY', 100_000, 1, 2 ** 31 - 1),
    nodeId: env.NODE_ID || `${hostname()}:${process.pid}`,
    edge,
    publicJournal,
    stores,
    keyEncryptionKey,
  };
  return errors.length > 0 ? { ok: false, errors } : { ok: true, config };
}

/**
 * Contract addresses are fixed per deployment (api.md): the last 20 bytes of
 * keccak256("<SERVICE_NAME>:<chainId>:<contract name>"), EIP-55 checksummed.
 */
export function contractAddresses(serviceName: string, chainId: number): Record<ContractName, Address> {
  const out = {} as Record<ContractName, Address>;
  for (const name of contractNames) {
    const hash: Hex = keccak256(toHex(`${serviceName}:${chainId}:${name}`));
    out[name] = getAddress(`0x${hash.slice(26)}`);
  }
  return out;
}

/** An RFC 3986 authority without userinfo: a DNS name, IPv4 or [IPv6], and an optional port. */
const HOST_PORT = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?$/;

/**
 * SIWE_DOMAIN='app.example.com,www.example.com:8443': the domains a SIWE message may name.
 * Required off NETWORK=local: the Host header of a request is the client's to choose, so
 * a phishing page's signature relayed with a matching Host would otherwise sign in.
 */
function parseSiweDomains(raw: string | undefined, network: Network, errors: string[]): string[] {
  const entries = (raw ?? '').split(',').map((d) => d.trim().toLowerCase()).filter(Boolean);
  for (const d of entries) {
    const port = /:([0-9]+)$/.exec(d)?.[1];
    if (d.length > 253 || !HOST_PORT.test(d) || (port !== undefined && Number(port) > 65535)) errors.push(`SIWE_DOMAIN: "${d}" is not a host[:port] (no scheme, path or user info)`);
  }
  if (entries.length === 0 && network !== 'local') {
    errors.push(`SIWE_DOMAIN must be set on NETWORK=${network}: the host[:port] that clients sign in at (comma-separated for several); the Host header is not trusted`);
  }
  return [...new Set(entries)];
}

/** RATE_LIMITS='{"markets":{"anonymous":1200},"orders":{"tier1":1000}}': per-minute limits, null = unlimited. */
function parseRateLimits(raw: string | undefined, errors: string[]): Partial<Record<RateLimitGroup, Partial<GroupLimits>>> {
  if (raw === undefined || raw === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    errors.push('RATE_LIMITS must be JSON, e.g. {"markets":{"anonymous":1200}}');
    return {};
  }
  const out: Partial<Record<RateLimitGroup, Partial<GroupLimits>>> = {};
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    errors.push('RATE_LIMITS must be a JSON object of groups');
    return out;
  }
  for (const [group, limits] of Object.entries(parsed)) {
    if (!(group in defaultRateLimits)) {
      errors.push(`RATE_LIMITS: unknown group "${group}" (groups: ${Object.keys(defaultRateLimits).join(', ')})`);
      continue;
    }
    const entry: Record<string, number | null> = {};
    for (const [who, n] of Object.entries((limits ?? {}) as Record<string, unknown>)) {
      if (!['anonymous', 'tier1', 'tier2', 'tier3'].includes(who) || !(n === null || (Number.isInteger(n) && (n as number) > 0))) {
        errors.push(`RATE_LIMITS.${group}.${who} must be anonymous|tier1|tier2|tier3 with a positive integer or null`);
        continue;
      }
      entry[who] = n as number | null;
    }
    out[group as RateLimitGroup] = entry as Partial<GroupLimits>;
  }
  return out;
}

/** The engine's rules a venue is created with: the defaults, with what the operator configures. */
export function venueConfigOf(config: Pick<AppConfig, 'referralRebateBps' | 'liquidationBandBps' | 'liquidationFeeBps'>): VenueConfig {
  return { ...defaultVenueConfig, referralRebateBps: config.referralRebateBps, liquidationBandBps: config.liquidationBandBps, liquidationFeeBps: config.liquidationFeeBps };
}
