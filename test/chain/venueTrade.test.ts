/**
 * Settlement through the real server with the embedded chain (docs/chain.md): two wallets trade
 * by the two-phase signed flow and the chain holds what the venue says (cash, positions, fill
 * amounts), in a transaction that succeeded and names both signed orders; a deposit a wallet
 * makes on chain itself arrives in its portfolio; a withdrawal arrives in the wallet; the reads
 * show each order's and trade's settlement.
 */
import t from 'tap';
import { decodeFunctionData, getAddress, hashTypedData, hexToBytes, type Address, type Hex } from 'viem';
import { collateralVaultAbi, mockCollateralTokenAbi, orderBookAbi } from '../../chain/artifacts.ts';
import { decodeItems } from '../../chain/items.ts';
import { orderBookDomain, placeOrderTypes } from '../../workers/eip712/types.ts';
import { request } from '../gateway/support/testApp.ts';
import { liveSeries, place, trader, usdc } from '../gateway/routes/ordersFixture.ts';
import { chainOf, settled, startChainApp, until } from './support/venueApp.ts';
import { asyncApiValidator, callMethod, privateSocket } from '../gateway/streams/support.ts';

t.setTimeout(240_000);

t.test('two wallets trade: the chain holds what the venue says, in a transaction that names both signed orders', async (t) => {
  const app = await startChainApp();
  t.teardown(() => app.close());
  const chain = chainOf(app);
  const seriesId = liveSeries(app).spec.seriesId;
  const alice = await trader(app, 'chain-trade-alice', { deposit: 100_000 });
  const bob = await trader(app, 'chain-trade-bob', { deposit: 100_000 });
  const api = await asyncApiValidator(app);
  const stream = await privateSocket(app, bob.token);
  t.teardown(() => stream.close());
  t.match(await callMethod(stream, 'SUBSCRIBE', ['account@fills', 'account@settlement']), { result: null, channels: ['account@fills', 'account@settlement'] }, 'account@settlement is a private channel');
  const ask = await place(app, alice, { seriesId, isBuy: false, size: '1', price: '2000' });
  const bid = await place(app, bob, { seriesId, isBuy: true, size: '0.4', price: '2100' });
  t.equal(bid.relay.status, 200);
  const askId = ask.relay.body.orders[0].orderId as Hex;
  const bidId = bid.relay.body.orders[0].orderId as Hex;
  const tradeId = bid.relay.body.orders[0].trades[0].tradeId as string;
  await settled(app);

  for (const w of [alice, bob]) {
    const collateral = await request(`${app.url}/api/account/portfolios/${w.portfolioId}/collateral`, { token: w.token });
    t.equal((await chain.cashOf(w.address, w.portfolioId)).toString(), collateral.body.deposit, `${w.address}: cash on chain is the venue's deposit`);
    const positions = await request(`${app.url}/api/account/portfolios/${w.portfolioId}/positions`, { token: w.token });
    const p = positions.body.positions.find((x: { seriesId: Hex }) => x.seriesId === seriesId);
    t.equal((await chain.positionOf(w.address, w.portfolioId, seriesId)).toString(), p.optionBalance, 'its position on chain is the venue\'s balance');
    t.equal((await chain.premiumOf(w.address, w.portfolioId, seriesId)).toString(), p.premiumBalance, 'and its deferred premium');
  }
  t.equal(await chain.filledOf(alice.address, askId), 4n * 10n ** 17n, "the maker's fill amount on chain");

  const order = await request(`${app.url}/api/mm/orders/${bidId}`, { token: bob.token });
  t.equal(order.body.relayStatus, 'final', 'the order read says its fill is final on chain');
  const txHash = order.body.relayTx as Hex;
  const receipt = await chain.client.getTransactionReceipt({ hash: txHash });
  t.equal(receipt.status, 'success', 'the transaction succeeded');
  t.equal(receipt.to?.toLowerCase(), chain.addresses.orderBook.toLowerCase(), 'it called the order book');
  const tx = await chain.client.getTransaction({ hash: txHash });
  const call = decodeFunctionData({ abi: orderBookAbi, data: tx.input });
  t.equal(call.functionName, 'settle');
  const items = decodeItems(hexToBytes(call.args![5] as Hex));
  const domain = orderBookDomain(app.app.services.config.serviceName, app.app.services.config.chainId, chain.addresses.orderBook);
  const declared = items.flatMap((i) => (i.kind === 'ORDER' ? [{ id: hashTypedData({ domain, types: placeOrderTypes, primaryType: 'PlaceOrder', message: { seriesId: i.seriesId, portfolioId: i.portfolioId, isBuy: i.isBuy, tick: i.tick, size: i.size, expiry: i.expiry, nonce: i.nonce, deadline: i.deadline } }), owner: getAddress(i.owner), signature: i.signature }] : []));
  t.ok(declared.some((d) => d.id === askId && d.owner === alice.address), "it carries alice's signed order");
  t.ok(declared.some((d) => d.id === bidId && d.owner === bob.address), "and bob's");
  t.ok(items.some((i) => i.kind === 'FILL'), 'and the fill between them');

  const trades = await request(`${app.url}/api/account/trades`, { token: bob.token });
  t.match(trades.body.trades.find((x: { id: string }) => x.id === tradeId), { relayStatus: 'final', relayTx: txHash }, 'the trade read names the same transaction');

  // The private stream: the fill as it happened (pending), then its batch included and final.
  const fill = await stream.next((f) => f['channel'] === 'account@fills', 'account@fills');
  t.match(fill['data'], { tradeId, relayStatus: 'pending', relayTx: null }, 'the fill frame: pending on chain');
  t.equal(api.check('accountFills.traderFill', fill), null, 'and validates against the AsyncAPI document');
  const included = await stream.next((f) => f['channel'] === 'account@settlement' && (f['data'] as { relayStatus: string }).relayStatus === 'included', 'included');
  t.match(included['data'], { relayStatus: 'included', relayTx: txHash, tradeIds: [tradeId], orderIds: [bidId] }, 'account@settlement: its batch in a block');
  const final = await stream.next((f) => f['channel'] === 'account@settlement' && (f['data'] as { relayStatus: string }).relayStatus === 'final', 'final');
  t.match(final['data'], { relayStatus: 'final', relayTx: txHash, tradeIds: [tradeId], orderIds: [bidId], reason: null }, 'then final, naming the same transaction');
  t.equal(api.check('accountSettlement.settlement', final), null, 'and validates');
});

t.test("a wallet's own deposit on chain arrives in its portfolio; a withdrawal arrives in the wallet", async (t) => {
  const app = await startChainApp();
  t.teardown(() => app.close());
  const chain = chainOf(app);
  const carol = await trader(app, 'chain-deposit-carol');
  await chain.fund(carol.address);
  const wallet = chain.wallet(carol.account);
  const amount = usdc(2_500);
  // The wallet's own calls: mint test USDC (the faucet token), approve the vault, deposit.
  const mint = await wallet.writeContract({ address: chain.addresses.collateralToken, abi: mockCollateralTokenAbi, functionName: 'mint', args: [carol.address, amount], account: carol.account, chain: null });
  await chain.client.waitForTransactionReceipt({ hash: mint });
  const approve = await wallet.writeContract({ address: chain.addresses.collateralToken, abi: mockCollateralTokenAbi, functionName: 'approve', args: [chain.addresses.collateralVault, amount], account: carol.account, chain: null });
  await chain.client.waitForTransactionReceipt({ hash: approve });
  const deposit = await wallet.writeContract({ address: chain.addresses.collateralVault, abi: collateralVaultAbi, functionName: 'deposit', args: [BigInt(carol.portfolioId), amount], account: carol.account, chain: null });
  t.equal((await chain.client.waitForTransactionReceipt({ hash: deposit })).status, 'success');
  const collateral = () => request(`${app.url}/api/account/portfolios/${carol.portfolioId}/collateral`, { token: carol.token });
  await until('the deposit credited', async () => (await collateral()).body.deposit === amount.toString());
  await settled(app);
  t.equal(await chain.cashOf(carol.address, carol.portfolioId), amount, 'on chain the pending deposit became cash');

  const before = await chain.tokenBalance(carol.address);
  const w = await request(`${app.url}/api/portfolio/withdraw`, { token: carol.token, body: { portfolioId: carol.portfolioId, amount: usdc(1_000).toString() } });
  t.equal(w.status, 200, JSON.stringify(w.body));
  t.equal((await collateral()).body.deposit, usdc(1_500).toString(), 'debited at once');
  await settled(app);
  t.equal((await chain.tokenBalance(carol.address)) - before, usdc(1_000), 'paid to the wallet on chain');
  t.equal(await chain.cashOf(carol.address, carol.portfolioId), usdc(1_500), 'and its cash on chain is the venue\'s');
});

t.test('a deposit into a portfolio the venue does not know is refused and its tokens go back', async (t) => {
  const app = await startChainApp();
  t.teardown(() => app.close());
  const chain = chainOf(app);
  const dave = await trader(app, 'chain-refund-dave');
  await chain.fund(dave.address);
  const wallet = chain.wallet(dave.account);
  const amount = usdc(10);
  for (const [address, abi, functionName, args] of [
    [chain.addresses.collateralToken, mockCollateralTokenAbi, 'mint', [dave.address, amount]],
    [chain.addresses.collateralToken, mockCollateralTokenAbi, 'approve', [chain.addresses.collateralVault, amount]],
    [chain.addresses.collateralVault, collateralVaultAbi, 'deposit', [99n, amount]],
  ] as const) {
    const hash = await wallet.writeContract({ address: address as Address, abi, functionName, args, account: dave.account, chain: null } as never);
    await chain.client.waitForTransactionReceipt({ hash });
  }
  await until('the refund', async () => (await chain.tokenBalance(dave.address)) === amount);
  await settled(app);
  t.equal(await chain.tokenBalance(dave.address), amount, 'back in the wallet');
});
