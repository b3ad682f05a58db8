/**
 * The embedded chain (`CHAIN=embedded`, the default on NETWORK=local; docs/chain.md "The chain
 * a venue talks to"): anvil from node_modules on 127.0.0.1, its state in `DATA_DIR/chain/anvil`
 * (loaded at start, dumped every second and at a clean stop), interval mining, the contracts
 * installed at the addresses the venue publishes (so the EIP-712 domains, order ids and every
 * signature made so far stay valid), the relayer's account funded with test ether. The venue
 * starts it with itself and stops it with itself; if the venue dies, anvil's guard stops it
 * (chain/anvil.ts). If anvil itself dies, it is started again on the same port and state; the
 * relayer sends again what its state dump had not kept.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPublicClient, http, type Address } from 'viem';
import { startAnvil, type Anvil } from './anvil.ts';
import { installContracts, type ContractAddresses } from './deploy.ts';

export type EmbeddedChainOptions = {
  readonly dataDir: string;
  readonly chainId: number;
  readonly serviceName: string;
  /** A fixed port (CHAIN_PORT), or a free one. */
  readonly port?: number;
  readonly blockTimeMs: number;
  /** The collateral vault's forced-withdrawal timeout (seconds). */
  readonly forcedActionTimeout: number;
  readonly relayer: Address;
  readonly oracleSigner: Address;
  /** For the log: anvil restarts, install failures. */
  readonly log: { info(msg: string, f?: object): void; warn(msg: string, f?: object): void; error(msg: string, f?: object): void };
  /** anvil stopped without being asked (it is started again). */
  readonly onExit?: (how: { code: number | null; signal: NodeJS.Signals | null }) => void;
};

export type EmbeddedChain = {
  readonly rpcUrl: string;
  readonly port: number;
  readonly addresses: ContractAddresses;
  /** The block the contracts were first installed in (the indexer starts there). */
  readonly deploymentBlock: number;
  /** anvil's process id now (it changes when anvil is started again). */
  pid(): number;
  stop(): Promise<void>;
};

/** Test ether for the relayer's gas: far more than any run spends. */
const RELAYER_BALANCE = 10n ** 24n;

export async function startEmbeddedChain(opts: EmbeddedChainOptions): Promise<EmbeddedChain> {
  const dir = join(opts.dataDir, 'chain');
  const stateDir = join(dir, 'anvil');
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  let anvil: Anvil = await startAnvil({ chainId: opts.chainId, blockTimeMs: opts.blockTimeMs, stateDir, ...(opts.port !== undefined ? { port: opts.port } : {}) });
  const port = anvil.port;
  const rpcUrl = anvil.rpcUrl;
  const contract = { serviceName: opts.serviceName, chainId: opts.chainId, relayer: opts.relayer, oracleSigner: opts.oracleSigner, faucet: true, forcedActionTimeout: opts.forcedActionTimeout };
  const install = async () => {
    const d = await installContracts(rpcUrl, contract);
    const client = createPublicClient({ transport: http(rpcUrl) });
    await client.request({ method: 'anvil_setBalance' as never, params: [opts.relayer, `0x${RELAYER_BALANCE.toString(16)}`] as never });
    return d;
  };
  let deployment;
  try {
    deployment = await install();
  } catch (e) {
    await anvil.stop();
    throw e;
  }
  // The first install's block, kept beside the state: a restart's install finds the contracts and changes nothing.
  const recordFile = join(dir, 'deployment.json');
  let deploymentBlock = Number(deployment.deploymentBlock);
  if (existsSync(recordFile)) {
    const saved = JSON.parse(readFileSync(recordFile, 'utf8')) as { deploymentBlock?: number };
    if (typeof saved.deploymentBlock === 'number' && saved.deploymentBlock <= deploymentBlock) deploymentBlock = saved.deploymentBlock;
  } else {
    writeFileSync(recordFile, `${JSON.stringify({ chainId: opts.chainId, addresses: deployment.addresses, deploymentBlock }, null, 2)}\n`, { mode: 0o600 });
  }

  let stopping = false;
  const supervise = (a: Anvil): void => {
    void a.exited.then(async (how) => {
      if (stopping) return;
      opts.onExit?.(how);
      opts.log.error('embedded chain: anvil exited; starting it again on the same port and state', { code: how.code, signal: how.signal, port });
      for (let attempt = 1; !stopping; attempt++) {
        await new Promise((r) => setTimeout(r, Math.min(5000, 500 * attempt)));
        if (stopping) return;
        try {
          anvil = await startAnvil({ chainId: opts.chainId, blockTimeMs: opts.blockTimeMs, stateDir, port });
          if (stopping) {
            await anvil.stop();
            return;
          }
          await install();
          opts.log.info('embedded chain: anvil started again', { port, pid: anvil.pid });
          supervise(anvil);
          return;
        } catch (e) {
          opts.log.warn('embedded chain: starting anvil again failed', { error: (e as Error).message, attempt });
        }
      }
    });
  };
  supervise(anvil);
  return {
    rpcUrl,
    port,
    addresses: deployment.addresses,
    deploymentBlock,
    pid: () => anvil.pid,
    async stop() {
      stopping = true;
      await anvil.stop();
    },
  };
}
