/**
 * One anvil with the contracts installed, for a test file: keys from keccak256 of the test's
 * name, a relayer that settles batches, signing helpers in the venue's domains, and a revert
 * check that decodes the custom error and asserts the state did not move. Block times start at
 * T0 (a fixed genesis timestamp) and batches carry match times at or before it, so nothing
 * depends on the date or on time passing.
 */
import {
  createPublicClient,
  createWalletClient,
  hashTypedData,
  http,
  keccak256,
  toHex,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { startAnvil, type Anvil } from '../../../chain/anvil.ts';
import { installContracts, type ContractAddresses } from '../../../chain/deploy.ts';
import {
  collateralVaultAbi,
  mockCollateralTokenAbi,
  orderBookAbi,
  positionManagerAbi,
  rfqAbi,
  seriesRegistryAbi,
  oracleAbi,
} from '../../../chain/artifacts.ts';
import { BatchWriter, decodeSettleError, settleCalldata, type BatchHeader, type SignedOrder, type SignedQuote, type SignedFill } from '../../../chain/items.ts';
import { fillQuoteTypes, orderBookDomain, placeOrderTypes, rfqDomain, rfqQuoteTypes, type Eip712Domain } from '../../../workers/eip712/types.ts';

export const T0 = 1_800_000_000;
export const SERVICE = 'Test';
export const WAD = 10n ** 18n;
export const FUND = '0x1111111111111111111111111111111111111111' as Address;
export const SETTLE_GAS_LIMIT = 500_000_000n;

export function keyOf(name: string): Hex {
  return keccak256(toHex(name));
}

export function accountOf(name: string): PrivateKeyAccount {
  return privateKeyToAccount(keyOf(name));
}

/** A batch header whose state hash is of its last command (a stand-in value: the contract only carries it). */
export function headerAt(seq: bigint, matchTime: bigint, journalPos: bigint): BatchHeader {
  return { seq, matchTime, journalPos, stateSeq: journalPos >> 32n, stateHash: `0x${(journalPos >> 32n).toString(16).padStart(64, '0')}` as Hex };
}

export type Fixture = Awaited<ReturnType<typeof chainFixture>>;

export async function chainFixture(name: string, opts: { faucet?: boolean; chainId?: number; collateralToken?: Address } = {}) {
  const chainId = opts.chainId ?? 31337;
  const anvil: Anvil = await startAnvil({ chainId, timestamp: T0 });
  const chain = { id: chainId, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [anvil.rpcUrl] } } } as const satisfies Chain;
  const transport = http(anvil.rpcUrl);
  const pub: PublicClient = createPublicClient({ chain, transport, pollingInterval: 10 });
  const relayer = accountOf(`${name}:relayer`);
  const oracleSigner = accountOf(`${name}:oracle`);
  const installOpts = { serviceName: SERVICE, chainId, relayer: relayer.address, oracleSigner: oracleSigner.address, faucet: opts.faucet ?? true };
  const deployment = await installContracts(anvil.rpcUrl, opts.collateralToken === undefined ? installOpts : { ...installOpts, faucet: false, collateralToken: opts.collateralToken });
  const a: ContractAddresses = deployment.addresses;
  const walletOf = (account: PrivateKeyAccount): WalletClient => createWalletClient({ account, chain, transport });
  const fund = async (address: Address): Promise<void> => {
    await pub.request({ method: 'anvil_setBalance' as never, params: [address, toHex(10n ** 24n)] as never });
  };
  await fund(relayer.address);
  const relayerWallet = walletOf(relayer);
  const bookDomain: Eip712Domain = orderBookDomain(SERVICE, chainId, a.orderBook);
  const quoteDomain: Eip712Domain = rfqDomain(SERVICE, chainId, a.rfq);
  let lastJournal = 0n;
  let matchTime = BigInt(T0 - 1000);

  type BatchArgs = { seq?: bigint; matchTime?: bigint; journalPos?: bigint; stateSeq?: bigint; stateHash?: Hex; gas?: bigint };

  /** The batch's header: the next seq, the last match time, the next journal position, and a state hash of the batch's last command unless given. */
  const nextArgs = async (args: BatchArgs): Promise<BatchHeader> => {
    const seq = args.seq ?? (await pub.readContract({ address: a.orderBook, abi: orderBookAbi, functionName: 'lastSeq' })) + 1n;
    const mt = args.matchTime ?? matchTime;
    const jp = args.journalPos ?? (((lastJournal >> 32n) + 1n) << 32n);
    const h = headerAt(seq, mt, jp);
    return { ...h, stateSeq: args.stateSeq ?? h.stateSeq, stateHash: args.stateHash ?? h.stateHash };
  };

  const send = async (items: Uint8Array, args: BatchArgs) => {
    const b = await nextArgs(args);
    const hash = await relayerWallet.sendTransaction({
      account: relayer,
      chain,
      to: a.orderBook,
      data: settleCalldata(b, items),
      gas: args.gas ?? SETTLE_GAS_LIMIT,
    });
    const receipt = await pub.waitForTransactionReceipt({ hash });
    return { receipt, ...b };
  };

  const fx = {
    anvil,
    chainId,
    chain,
    pub,
    addresses: a,
    deployment,
    relayer,
    oracleSigner,
    bookDomain,
    quoteDomain,
    walletOf,
    fund,
    /** Settles one batch; it must succeed. Match times and journal positions advance by themselves. */
    async settle(items: Uint8Array | BatchWriter, args: BatchArgs = {}) {
      const bytes = items instanceof BatchWriter ? items.bytes() : items;
      const r = await send(bytes, args);
      if (r.receipt.status !== 'success') {
        const err = await fx.revertOf(bytes, r);
        throw new Error(`settle reverted: ${JSON.stringify(err, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
      }
      lastJournal = r.journalPos;
      matchTime = r.matchTime;
      return r.receipt;
    },
    /** The decoded revert of settle() for a batch, by eth_call; null if it would succeed. */
    async revertOf(items: Uint8Array, args: BatchArgs = {}) {
      const b = await nextArgs(args);
      try {
        await pub.call({ account: relayer.address, to: a.orderBook, data: settleCalldata(b, items), gas: SETTLE_GAS_LIMIT });
        return null;
      } catch (e) {
        const data = revertData(e);
        if (data === null) throw e;
        return decodeSettleError(data);
      }
    },
    /**
     * A batch that must revert: its error (decoded from eth_call), then the batch sent as a
     * transaction, which must fail, and `fingerprint()` must read the same before and after.
     */
    async settleReverts(items: Uint8Array | BatchWriter, fingerprint: () => Promise<unknown>, args: BatchArgs = {}) {
      const bytes = items instanceof BatchWriter ? items.bytes() : items;
      const before = stringify(await fingerprint());
      const err = await fx.revertOf(bytes, args);
      if (err === null) throw new Error('the batch did not revert');
      const r = await send(bytes, args);
      if (r.receipt.status !== 'reverted') throw new Error('the batch was accepted');
      const after = stringify(await fingerprint());
      if (before !== after) throw new Error(`state changed by a reverted batch:\n${before}\n${after}`);
      return err;
    },
    setMatchTime(t: bigint) {
      matchTime = t;
    },
    get matchTime() {
      return matchTime;
    },
    async signOrder(account: PrivateKeyAccount, o: Omit<SignedOrder, 'owner' | 'signature'>): Promise<{ orderId: Hex; order: SignedOrder }> {
      const typed = { domain: bookDomain, types: placeOrderTypes, primaryType: 'PlaceOrder', message: o } as const;
      const signature = await account.signTypedData(typed);
      const orderId = hashTypedData(typed);
      return { orderId, order: { ...o, owner: account.address, signature } };
    },
    async signQuote(mm: PrivateKeyAccount, q: Omit<SignedQuote, 'mmm' | 'signature'>): Promise<SignedQuote> {
      const message = { ...q, mmm: mm.address };
      const signature = await mm.signTypedData({ domain: quoteDomain, types: rfqQuoteTypes, primaryType: 'RfqQuote', message });
      return { ...message, signature };
    },
    async signFill(taker: PrivateKeyAccount, quoteId: Hex, f: Omit<SignedFill, 'taker' | 'signature'>): Promise<SignedFill> {
      const signature = await taker.signTypedData({
        domain: quoteDomain, types: fillQuoteTypes, primaryType: 'FillQuote',
        message: { quoteId, portfolioId: f.portfolioId, fillSize: f.fillSize, nonce: f.nonce, deadline: f.deadline },
      });
      return { ...f, taker: taker.address, signature };
    },
    async quoteId(q: SignedQuote): Promise<Hex> {
      const { signature: _, ...quote } = q;
      return pub.readContract({ address: a.rfq, abi: rfqAbi, functionName: 'quoteId', args: [quote] });
    },
    async signSettlementPrice(pairId: Hex, expiry: number, price: bigint, signer: PrivateKeyAccount = oracleSigner): Promise<Hex> {
      return signer.signTypedData({
        domain: { name: `${SERVICE}OptionsOracle`, version: '1', chainId, verifyingContract: a.oracle },
        types: { SettlementPrice: [{ name: 'pairId', type: 'bytes32' }, { name: 'expiry', type: 'uint256' }, { name: 'price', type: 'uint256' }] },
        primaryType: 'SettlementPrice',
        message: { pairId, expiry: BigInt(expiry), price },
      });
    },
    cashOf: (owner: Address, portfolioId: bigint) => pub.readContract({ address: a.collateralVault, abi: collateralVaultAbi, functionName: 'cashOf', args: [owner, portfolioId] }),
    positionOf: (owner: Address, portfolioId: bigint, seriesId: Hex) => pub.readContract({ address: a.positionManager, abi: positionManagerAbi, functionName: 'positionOf', args: [owner, portfolioId, seriesId] }),
    premiumOf: (owner: Address, portfolioId: bigint, seriesId: Hex) => pub.readContract({ address: a.positionManager, abi: positionManagerAbi, functionName: 'premiumOf', args: [owner, portfolioId, seriesId] }),
    filledOf: (owner: Address, orderId: Hex) => pub.readContract({ address: a.orderBook, abi: orderBookAbi, functionName: 'filledOf', args: [owner, orderId] }),
    lastSeq: () => pub.readContract({ address: a.orderBook, abi: orderBookAbi, functionName: 'lastSeq' }),
    settleHash: () => pub.readContract({ address: a.orderBook, abi: orderBookAbi, functionName: 'settleHash' }),
    solvency: () => pub.readContract({ address: a.collateralVault, abi: collateralVaultAbi, functionName: 'solvency' }),
    seriesOf: (id: Hex) => pub.readContract({ address: a.seriesRegistry, abi: seriesRegistryAbi, functionName: 'seriesOf', args: [id] }),
    settlementPrice: (pairId: Hex, expiry: bigint) => pub.readContract({ address: a.oracle, abi: oracleAbi, functionName: 'settlementPrice', args: [pairId, expiry] }),
    tokenBalance: (owner: Address) => pub.readContract({ address: a.collateralToken, abi: mockCollateralTokenAbi, functionName: 'balanceOf', args: [owner] }),
    /**
     * What a reverted batch must leave as it was: the batch state, the totals, and the cash,
     * positions and cumulative fills named.
     */
    async fingerprint(what: { accounts?: [Address, bigint][]; positions?: [Address, bigint, Hex][]; orders?: [Address, Hex][] } = {}) {
      const ob = { address: a.orderBook, abi: orderBookAbi } as const;
      return {
        seq: await pub.readContract({ ...ob, functionName: 'lastSeq' }),
        matchTime: await pub.readContract({ ...ob, functionName: 'lastMatchTime' }),
        journalPos: await pub.readContract({ ...ob, functionName: 'lastJournalPos' }),
        settleHash: await pub.readContract({ ...ob, functionName: 'settleHash' }),
        solvency: await fx.solvency(),
        cash: await Promise.all((what.accounts ?? []).map(([o, p]) => fx.cashOf(o, p))),
        positions: await Promise.all((what.positions ?? []).map(async ([o, p, s]) => [await fx.positionOf(o, p, s), await fx.premiumOf(o, p, s)])),
        filled: await Promise.all((what.orders ?? []).map(([o, id]) => fx.filledOf(o, id))),
      };
    },
    async stop() {
      await anvil.stop();
    },
  };
  return fx;
}

/** The revert data in a viem error, wherever it nests. */
export function revertData(e: unknown): Hex | null {
  let cur: unknown = e;
  for (let i = 0; i < 10 && cur !== null && typeof cur === 'object'; i++) {
    const o = cur as { data?: unknown; cause?: unknown };
    if (typeof o.data === 'string' && o.data.startsWith('0x')) return o.data as Hex;
    if (o.data !== null && typeof o.data === 'object' && typeof (o.data as { data?: unknown }).data === 'string') return (o.data as { data: Hex }).data;
    cur = o.cause;
  }
  return null;
}

export function stringify(v: unknown): string {
  return JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x));
}

/** The venue's series id (docs/domain.md). */
export { seriesIdOf } from './ids.ts';
