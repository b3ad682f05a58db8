/**
 * chain/deploy.ts and chain/deployMain.ts: the installer puts this build's runtime code at the
 * addresses the venue publishes (gateway/config.ts), domains naming them, idempotently, and
 * refuses a target holding other code; the deployer CREATEs the contracts at their predicted
 * addresses; deploy:contracts validates its environment and writes deployments/<chainId>.json.
 */
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, hashDomain, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startAnvil } from '../../chain/anvil.ts';
import { deployContracts, installContracts, publishedAddresses, CONTRACT_NAMES } from '../../chain/deploy.ts';
import { deployConfig, deployMain } from '../../chain/deployMain.ts';
import { collateralVaultAbi, oracleAbi, orderBookAbi, rfqAbi } from '../../chain/artifacts.ts';
import { contractAddresses } from '../../gateway/config.ts';
import { eip712DomainType, orderBookDomain, rfqDomain } from '../../workers/eip712/types.ts';
import { accountOf } from './support/fixture.ts';

// anvil's first dev account: funded at genesis.
const DEV_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const relayer = accountOf('deploy:relayer').address;
const oracleSigner = accountOf('deploy:oracle').address;

const anvil = await startAnvil({ chainId: 10143 });
t.teardown(() => anvil.stop());
const pub = createPublicClient({ transport: http(anvil.rpcUrl) });

async function separators(a: { orderBook: Hex; rfq: Hex; oracle: Hex }) {
  return {
    orderBook: await pub.readContract({ address: a.orderBook, abi: orderBookAbi, functionName: 'domainSeparator' }),
    rfq: await pub.readContract({ address: a.rfq, abi: rfqAbi, functionName: 'domainSeparator' }),
    oracle: await pub.readContract({ address: a.oracle, abi: oracleAbi, functionName: 'domainSeparator' }),
  };
}
const hashOf = (d: { name: string; version: string; chainId: number; verifyingContract: Hex }) => hashDomain({ domain: { ...d, chainId: BigInt(d.chainId) }, types: { EIP712Domain: eip712DomainType } });

t.test('the published addresses are the gateway\'s', async (t) => {
  for (const [service, chain] of [['Diffusal', 10143], ['Test', 31337]] as const) t.same(publishedAddresses(service, chain), contractAddresses(service, chain));
});

t.test('installContracts: at the published addresses, domains on them, idempotent', async (t) => {
  const opts = { serviceName: 'Diffusal', chainId: 10143, relayer, oracleSigner, faucet: true };
  const d = await installContracts(anvil.rpcUrl, opts);
  t.same(d.addresses, contractAddresses('Diffusal', 10143));
  for (const name of CONTRACT_NAMES) t.not(await pub.getCode({ address: d.addresses[name] }), undefined, `${name} has code`);
  t.same(await separators(d.addresses), {
    orderBook: hashOf(orderBookDomain('Diffusal', 10143, d.addresses.orderBook)),
    rfq: hashOf(rfqDomain('Diffusal', 10143, d.addresses.rfq)),
    oracle: hashOf({ name: 'DiffusalOptionsOracle', version: '1', chainId: 10143, verifyingContract: d.addresses.oracle }),
  }, 'the domains the venue signs in (workers/eip712/types.ts)');
  t.equal(await pub.readContract({ address: d.addresses.orderBook, abi: orderBookAbi, functionName: 'relayer' }), relayer);
  t.equal(await pub.readContract({ address: d.addresses.collateralVault, abi: collateralVaultAbi, functionName: 'faucet' }), true);
  const again = await installContracts(anvil.rpcUrl, opts);
  t.same(again.addresses, d.addresses, 'a second install leaves everything as it is');
  await t.rejects(installContracts(anvil.rpcUrl, { ...opts, relayer: oracleSigner }), /OrderBook \(orderBook\) at 0x[0-9a-fA-F]{40} holds other code/, 'other code at a target');
  await t.rejects(installContracts(anvil.rpcUrl, { ...opts, chainId: 1 }), /chain id 10143, not CHAIN_ID 1/);
});

t.test('deployContracts: CREATE at the predicted addresses, with a real token or the test token', async (t) => {
  const opts = { serviceName: 'Real', chainId: 10143, relayer, oracleSigner, faucet: true };
  const d = await deployContracts({ rpcUrl: anvil.rpcUrl, privateKey: DEV_KEY }, opts);
  t.equal(d.chainId, 10143);
  t.ok(d.deploymentBlock > 0n);
  for (const name of CONTRACT_NAMES) t.not(await pub.getCode({ address: d.addresses[name] }), undefined, `${name} deployed`);
  t.same(await separators(d.addresses), {
    orderBook: hashOf(orderBookDomain('Real', 10143, d.addresses.orderBook)),
    rfq: hashOf(rfqDomain('Real', 10143, d.addresses.rfq)),
    oracle: hashOf({ name: 'RealOptionsOracle', version: '1', chainId: 10143, verifyingContract: d.addresses.oracle }),
  }, 'domains on the contracts\' own addresses');
  t.equal(await pub.readContract({ address: d.addresses.collateralVault, abi: collateralVaultAbi, functionName: 'collateralToken' }), d.addresses.collateralToken);
  const withToken = await deployContracts({ rpcUrl: anvil.rpcUrl, privateKey: DEV_KEY }, { ...opts, faucet: false, collateralToken: d.addresses.collateralToken });
  t.equal(withToken.addresses.collateralToken, d.addresses.collateralToken, 'the given token, none deployed');
  t.equal(await pub.readContract({ address: withToken.addresses.collateralVault, abi: collateralVaultAbi, functionName: 'faucet' }), false);
  await t.rejects(deployContracts({ rpcUrl: anvil.rpcUrl, privateKey: DEV_KEY }, { ...opts, collateralToken: d.addresses.collateralToken }), /cannot be the faucet/);
});

t.test('deploy:contracts: a missing or malformed variable exits 2 naming it', async (t) => {
  const bad = deployConfig({ CHAIN_RPC_URL: 'ftp://x', DEPLOYER_PRIVATE_KEY: '0x12', RELAYER_ADDRESS: 'nope', CHAIN_ID: 'x', SERVICE_NAME: 'a b' });
  t.equal(bad.ok, false);
  const errors = bad.ok ? [] : bad.errors;
  for (const name of ['CHAIN_RPC_URL', 'DEPLOYER_PRIVATE_KEY', 'RELAYER_ADDRESS', 'ORACLE_ADDRESS', 'SERVICE_NAME', 'CHAIN_ID']) t.ok(errors.some((e) => e.startsWith(name)), `${name} named`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'chain/deployMain.ts'], { env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8' });
  t.equal(run.status, 2);
  t.match(run.stderr, /CHAIN_RPC_URL/);
  t.match(run.stderr, /DEPLOYER_PRIVATE_KEY/);
  const same = deployConfig({ CHAIN_RPC_URL: 'http://x', DEPLOYER_PRIVATE_KEY: DEV_KEY, RELAYER_ADDRESS: relayer, ORACLE_ADDRESS: relayer, CHAIN_ID: '1' });
  t.match(same.ok ? [] : same.errors, [/ORACLE_ADDRESS must not be RELAYER_ADDRESS/]);
});

t.test('deploy:contracts writes deployments/<chainId>.json', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'deploy-'));
  const keyFile = join(dir, 'key');
  writeFileSync(keyFile, `${DEV_KEY}\n`);
  const parsed = deployConfig({ CHAIN_RPC_URL: anvil.rpcUrl, DEPLOYER_PRIVATE_KEY_FILE: keyFile, RELAYER_ADDRESS: relayer, ORACLE_ADDRESS: oracleSigner, SERVICE_NAME: 'File', CHAIN_ID: '10143' });
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  t.equal(parsed.config.options.faucet, true, 'no COLLATERAL_TOKEN: the test token and its faucet');
  const path = await deployMain(parsed.config, dir);
  const record = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  t.equal(path, join(dir, 'deployments', '10143.json'));
  t.match(record, { chainId: 10143, relayer, oracle: oracleSigner, serviceName: 'File' });
  t.same(Object.keys(record.addresses as object).sort(), [...CONTRACT_NAMES].sort());
  t.type(record.deploymentBlock, 'number');
  t.equal(privateKeyToAccount(DEV_KEY).address.length, 42);
});
