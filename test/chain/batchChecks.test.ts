/**
 * The checks of a whole batch (docs/chain.md "The settlement stream"): only the relayer, only
 * `lastSeq + 1`, match times monotone and not ahead of the block, journal positions increasing,
 * whole items of known kinds; and the rolling settleHash, with the state hash each batch
 * carries, recomputed in TypeScript.
 */
import t from 'tap';
import { keccak256, parseEventLogs, toHex, type Hex } from 'viem';
import { chainFixture, accountOf, revertData, T0, WAD } from './support/fixture.ts';
import { listMarket } from './support/market.ts';
import { BatchWriter, batchHash, decodeSettleError, journalPosOf, nextSettleHash, settleCalldata } from '../../chain/items.ts';
import { orderBookAbi } from '../../chain/artifacts.ts';

const fx = await chainFixture('batchChecks');
t.teardown(() => fx.stop());
const m = await listMarket(fx, 'BATCH', 4);
const [alice, bob] = m.accounts as [typeof m.accounts[0], typeof m.accounts[0]];
const state = () => fx.fingerprint({ accounts: [[alice.address, 1n], [bob.address, 1n]], positions: [[alice.address, 1n, m.seriesId], [bob.address, 1n, m.seriesId]] });

async function aFill(): Promise<BatchWriter> {
  const w = new BatchWriter();
  await m.fill(w, alice, bob, WAD, 100, true, { taker: 10n });
  return w;
}

t.test('settleHash rolls over every batch as TypeScript computes it; Settled says so', async (t) => {
  let hash = (await fx.settleHash()) as Hex;
  for (let i = 0; i < 3; i++) {
    const w = await aFill();
    const seq = (await fx.lastSeq()) + 1n;
    const matchTime = BigInt(T0 - 900 + i);
    const journalPos = journalPosOf(100 + i, 3);
    // A state hash of the batch's last command, of a later one, of an earlier one: carried as given.
    const stateSeq = BigInt(100 + i + [0, 1, -1][i]!);
    const stateHash = keccak256(toHex(`state ${i}`));
    const receipt = await fx.settle(w, { seq, matchTime, journalPos, stateSeq, stateHash });
    hash = nextSettleHash(hash, batchHash({ seq, matchTime, journalPos, stateSeq, stateHash }, w.bytes()));
    t.equal(await fx.settleHash(), hash, `after batch ${seq}`);
    const [settled] = parseEventLogs({ abi: orderBookAbi, logs: receipt.logs, eventName: 'Settled' });
    t.same(settled?.args, { seq, journalPos, matchTime, settleHash: hash, fills: 1n, stateSeq, stateHash }, 'Settled carries the state hash and its seq');
  }
  const ob = { address: fx.addresses.orderBook, abi: orderBookAbi } as const;
  t.equal(await fx.pub.readContract({ ...ob, functionName: 'lastJournalPos' }), journalPosOf(102, 3));
  t.equal(await fx.pub.readContract({ ...ob, functionName: 'lastMatchTime' }), BigInt(T0 - 898));
});

t.test('BadSeq: a settled batch sent again, and a batch that skips one', async (t) => {
  const w = await aFill();
  const seq = (await fx.lastSeq()) + 1n;
  await fx.settle(w, { seq, journalPos: journalPosOf(200, 0) });
  const replay = await fx.settleReverts(w, state, { seq, journalPos: journalPosOf(201, 0) });
  t.match(replay, { name: 'BadSeq', args: { expected: seq + 1n, given: seq }, item: null });
  const skip = await fx.settleReverts(await aFill(), state, { seq: seq + 2n, journalPos: journalPosOf(201, 0) });
  t.match(skip, { name: 'BadSeq', args: { expected: seq + 1n, given: seq + 2n } });
});

t.test('MatchTimeBackwards, MatchTimeInFuture, JournalBackwards', async (t) => {
  const w = await aFill();
  await fx.settle(w, { matchTime: BigInt(T0 - 500), journalPos: journalPosOf(300, 0) });
  t.match(await fx.settleReverts(await aFill(), state, { matchTime: BigInt(T0 - 501), journalPos: journalPosOf(301, 0) }), { name: 'MatchTimeBackwards', args: { last: BigInt(T0 - 500), given: BigInt(T0 - 501) } });
  const future = await fx.settleReverts(await aFill(), state, { matchTime: 1n << 40n, journalPos: journalPosOf(301, 0) });
  t.match(future, { name: 'MatchTimeInFuture', args: { given: 1n << 40n } });
  t.ok((future.args.blockTime as bigint) >= BigInt(T0));
  t.match(await fx.settleReverts(await aFill(), state, { journalPos: journalPosOf(300, 0) }), { name: 'JournalBackwards', args: { last: journalPosOf(300, 0), given: journalPosOf(300, 0) } });
  t.match(await fx.settleReverts(await aFill(), state, { journalPos: 1n << 128n }), { name: 'JournalBackwards' }, 'a journal position beyond 128 bits');
  await fx.settle(await aFill(), { matchTime: BigInt(T0 - 500), journalPos: journalPosOf(300, 1) });
  t.pass('the same match time, a later item of the same command: accepted');
});

t.test('NotRelayer', async (t) => {
  const stranger = accountOf('batchChecks:stranger');
  await fx.fund(stranger.address);
  const seq = (await fx.lastSeq()) + 1n;
  const data = settleCalldata({ seq, matchTime: fx.matchTime, journalPos: journalPosOf(400, 0), stateSeq: 400n, stateHash: keccak256(toHex('state')) }, (await aFill()).bytes());
  const before = await state();
  let err: unknown = null;
  try {
    await fx.pub.call({ account: stranger.address, to: fx.addresses.orderBook, data });
  } catch (e) {
    err = e;
  }
  t.match(decodeSettleError(revertData(err)!), { name: 'NotRelayer', args: { caller: stranger.address } });
  const hash = await fx.walletOf(stranger).sendTransaction({ account: stranger, chain: fx.chain, to: fx.addresses.orderBook, data, gas: 5_000_000n });
  t.equal((await fx.pub.waitForTransactionReceipt({ hash })).status, 'reverted');
  t.same(await state(), before);
});

t.test('BadItem: a batch cut inside an item, an unknown kind', async (t) => {
  const w = await aFill();
  const bytes = w.bytes();
  for (const cut of [1, 20, 52]) {
    const err = await fx.settleReverts(bytes.subarray(0, bytes.length - cut), state, { journalPos: journalPosOf(500, 0) });
    t.match(err, { name: 'BadItem', args: { item: 2n, kind: 2n }, item: 2 }, `a FILL cut ${cut} bytes short`);
  }
  const order = bytes.subarray(0, 100);
  t.match(await fx.settleReverts(order, state, { journalPos: journalPosOf(500, 0) }), { name: 'BadItem', args: { item: 0n, kind: 1n } }, 'an ORDER cut');
  const unknown = new Uint8Array([...bytes, 0x08, 0, 0, 0]);
  t.match(await fx.settleReverts(unknown, state, { journalPos: journalPosOf(500, 0) }), { name: 'BadItem', args: { item: 3n, kind: 8n } });
  const cash = new BatchWriter();
  cash.mint(alice.address, 1n, 5n);
  const mint = cash.bytes();
  t.match(await fx.settleReverts(new Uint8Array([...bytes, ...mint.subarray(0, 30)]), state, { journalPos: journalPosOf(500, 0) }), { name: 'BadItem', args: { item: 3n, kind: 0x12n } }, 'a MINT cut');
  t.match(await fx.settleReverts(new Uint8Array([0x00]), state, { journalPos: journalPosOf(500, 0) }), { name: 'BadItem', args: { item: 0n, kind: 0n } });
});

t.test('an empty batch settles: it only moves the stream on', async (t) => {
  const seq = (await fx.lastSeq()) + 1n;
  await fx.settle(new Uint8Array(0), { journalPos: journalPosOf(600, 0) });
  t.equal(await fx.lastSeq(), seq);
});
