/**
 * `npm run deploy:contracts`: deploys the contracts to a real chain (chain/deploy.ts
 * `deployContracts`) and writes deployments/<chainId>.json `{ chainId, addresses,
 * deploymentBlock, relayer, oracle, serviceName }` (docs/chain.md "Operations").
 *
 * Environment: CHAIN_RPC_URL, DEPLOYER_PRIVATE_KEY (or DEPLOYER_PRIVATE_KEY_FILE), RELAYER_ADDRESS,
 * ORACLE_ADDRESS, SERVICE_NAME (default Diffusal), CHAIN_ID, COLLATERAL_TOKEN (optional: without
 * it the open-mint test token is deployed and MINT items are allowed), FORCED_ACTION_TIMEOUT_S
 * (default 86400: when anyone may execute a forced withdrawal the venue did not take in). A missing or malformed
 * variable exits 2 with a message naming it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getAddress, isAddress, type Address, type Hex } from 'viem';
import { DEFAULT_FORCED_ACTION_TIMEOUT_S, deployContracts, type ContractOptions } from './deploy.ts';
import { ROOT } from './build.ts';

export type DeployConfig = { rpcUrl: string; privateKey: Hex; options: ContractOptions };

/** The deployment's configuration from the environment, or the list of what is wrong with it. */
export function deployConfig(env: NodeJS.ProcessEnv): { ok: true; config: DeployConfig } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const rpcUrl = env.CHAIN_RPC_URL ?? '';
  if (!/^https?:\/\/\S+$/.test(rpcUrl)) errors.push('CHAIN_RPC_URL must be an http(s) URL of the chain\'s JSON-RPC');
  let key = env.DEPLOYER_PRIVATE_KEY ?? '';
  if (key === '' && env.DEPLOYER_PRIVATE_KEY_FILE) {
    try {
      key = readFileSync(env.DEPLOYER_PRIVATE_KEY_FILE, 'utf8').trim();
    } catch (e) {
      errors.push(`DEPLOYER_PRIVATE_KEY_FILE: cannot read ${env.DEPLOYER_PRIVATE_KEY_FILE}: ${(e as Error).message}`);
    }
  }
  if (key !== '' && !/^0x[0-9a-fA-F]{64}$/.test(key)) errors.push('DEPLOYER_PRIVATE_KEY must be 0x and 64 hex digits');
  else if (key === '' && !env.DEPLOYER_PRIVATE_KEY_FILE) errors.push('DEPLOYER_PRIVATE_KEY (or DEPLOYER_PRIVATE_KEY_FILE) is required');
  const address = (name: string, required: boolean): Address | undefined => {
    const v = env[name];
    if (v === undefined || v === '') {
      if (required) errors.push(`${name} is required (an address)`);
      return undefined;
    }
    if (!isAddress(v, { strict: false })) {
      errors.push(`${name} must be an address (got "${v}")`);
      return undefined;
    }
    return getAddress(v);
  };
  const relayer = address('RELAYER_ADDRESS', true);
  const oracleSigner = address('ORACLE_ADDRESS', true);
  const collateralToken = address('COLLATERAL_TOKEN', false);
  const serviceName = env.SERVICE_NAME || 'Diffusal';
  if (!/^[A-Za-z0-9]{1,32}$/.test(serviceName)) errors.push(`SERVICE_NAME must be 1-32 letters or digits (got "${serviceName}")`);
  const chainId = Number(env.CHAIN_ID);
  if (!Number.isSafeInteger(chainId) || chainId < 1) errors.push(`CHAIN_ID must be a positive integer (got "${env.CHAIN_ID ?? ''}")`);
  if (relayer !== undefined && oracleSigner !== undefined && relayer === oracleSigner) errors.push('ORACLE_ADDRESS must not be RELAYER_ADDRESS: settlement prices need a key the relayer does not hold');
  const timeout = env.FORCED_ACTION_TIMEOUT_S === undefined || env.FORCED_ACTION_TIMEOUT_S === '' ? DEFAULT_FORCED_ACTION_TIMEOUT_S : Number(env.FORCED_ACTION_TIMEOUT_S);
  if (!Number.isSafeInteger(timeout) || timeout < 60 || timeout > 365 * 86_400) errors.push(`FORCED_ACTION_TIMEOUT_S must be an integer from 60 to 31536000 seconds (got "${env.FORCED_ACTION_TIMEOUT_S}")`);
  if (errors.length > 0) return { ok: false, errors };
  const options: ContractOptions = { serviceName, chainId, relayer: relayer!, oracleSigner: oracleSigner!, faucet: collateralToken === undefined, forcedActionTimeout: timeout };
  if (collateralToken !== undefined) options.collateralToken = collateralToken;
  return { ok: true, config: { rpcUrl, privateKey: key as Hex, options } };
}

/** Deploys and writes deployments/<chainId>.json; returns its path. */
export async function deployMain(config: DeployConfig, root = ROOT): Promise<string> {
  const d = await deployContracts({ rpcUrl: config.rpcUrl, privateKey: config.privateKey }, config.options);
  const dir = join(root, 'deployments');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${d.chainId}.json`);
  const record = {
    chainId: d.chainId,
    addresses: d.addresses,
    deploymentBlock: Number(d.deploymentBlock),
    relayer: config.options.relayer,
    oracle: config.options.oracleSigner,
    serviceName: config.options.serviceName,
  };
  writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
  return path;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const parsed = deployConfig(process.env);
  if (!parsed.ok) {
    for (const e of parsed.errors) process.stderr.write(`deploy:contracts: ${e}\n`);
    process.exit(2);
  }
  deployMain(parsed.config).then(
    (path) => process.stdout.write(`deployed; wrote ${path}\n`),
    (e: unknown) => {
      process.stderr.write(`deploy:contracts: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
