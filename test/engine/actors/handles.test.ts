/**
 * Wallets and portfolios behind dense integer handles (engine/actors/accounts.ts; docs/engine.md
 * "Accounts: handles and rows"): handles in order of first use, a lookup that makes nothing,
 * the rows reached by handle, the margin group a kept list (no allocation per call), and a
 * restore that gives the same handles in the same order (the snapshot's).
 */
import t from 'tap';
import { Venue } from '../../../engine/venue.ts';
import { ALICE, BOB, BTC, ETH, MM, listedVenue, usdc } from '../support/venueFixture.ts';

t.test('wallet handles: in order of first use, looked up without making one', async (t) => {
  const h = listedVenue();
  const a = h.venue.state.accounts;
  t.equal(a.walletOf(ALICE), -1, 'a wallet never used: -1');
  t.equal(a.walletCount, 0, 'and nothing made by the lookup');
  h.fund(BOB, usdc(10));
  h.fund(ALICE, usdc(20));
  t.same([a.walletOf(BOB), a.walletOf(ALICE)], [0, 1], 'handles in order of first use');
  t.same(a.owners, [BOB, ALICE]);
  t.equal(a.wallet(BOB), 0, 'wallet() finds an existing one');
  const bob = a.walletOf(BOB);
  t.equal(a.cashOf[bob], a.portfolio(BOB, 0)!.handle, "portfolio 0's handle in the wallet row");
  t.equal(a.nextPortfolioId[bob], 2, 'the next portfolio id in the wallet row');
  t.same([...a.portfolioIds[bob]!.keys()], [0, 1], "the wallet's portfolios by id, in order of creation");
  const p = a.portfolio(ALICE, 1)!;
  t.same([p.wallet, a.portfolios[p.handle] === p, a.depositOf(p)], [1, true, usdc(20)], 'a portfolio names its wallet; its handle finds it; its deposit is its row');
  t.equal(a.cash.deposit[p.handle], Number(usdc(20)), 'the deposit in the Float64Array row');
});

t.test("a market maker's margin group: a kept list, portfolio 0 first, then its internal portfolios in order of first use", async (t) => {
  const h = listedVenue();
  const a = h.venue.state.accounts;
  h.ok({ type: 'set_mmm', address: MM, isMmm: true });
  h.ok({ type: 'deposit', owner: MM, portfolioId: 0, amount: usdc(500_000) });
  const w = a.walletOf(MM);
  t.equal(a.isMmm[w], 1, 'the flag in the wallet row');
  const btc = a.internalPortfolio(MM, BTC, h.ts);
  const eth = a.internalPortfolio(MM, ETH, h.ts);
  t.same([btc.id, eth.id], [-1, -2], 'internal ids -1, -2 in order of first use');
  t.equal(a.internalPortfolio(MM, BTC, h.ts), btc, 'found again, not made twice');
  t.equal(a.internalOf(w, ETH), eth);
  const cash = a.portfolio(MM, 0)!;
  const group = a.marginGroup(btc);
  t.same(group.map((p) => p.id), [0, -1, -2], 'the group: portfolio 0, then internal portfolios');
  t.equal(a.marginGroup(cash), group, 'the same list from any member: kept, not made per call');
  t.equal(a.marginGroup(eth), group);
  t.same([a.marginAnchor(btc), a.marginAnchor(eth), a.marginAnchor(cash)], [cash, cash, cash], 'anchored on portfolio 0');
  h.fund(ALICE, usdc(10));
  const alone = a.portfolio(ALICE, 1)!;
  t.same(a.marginGroup(alone), [alone], 'a trading portfolio is its own group');
  t.equal(a.marginGroup(alone), a.marginGroup(alone), 'also kept');
  t.equal(a.marginAnchor(alone), alone);
});

t.test('a restore makes the same handles in the same order, and the same bytes', async (t) => {
  const h = listedVenue();
  h.fund(BOB, usdc(10));
  h.ok({ type: 'set_mmm', address: MM, isMmm: true });
  h.ok({ type: 'deposit', owner: MM, portfolioId: 0, amount: usdc(500_000) });
  h.fund(ALICE, usdc(20));
  h.ok({ type: 'create_portfolio', owner: BOB });
  h.venue.state.accounts.internalPortfolio(MM, ETH, h.ts);
  const bytes = h.venue.serialize();
  const back = Venue.restore(bytes);
  const x = h.venue.state.accounts;
  const y = back.state.accounts;
  t.same(y.owners, x.owners, 'wallets in the same order');
  t.same(
    y.portfolios.map((p) => [p.owner, p.id, p.wallet]),
    [...x.allPortfolios()].map((p) => [p.owner, p.id, p.wallet]),
    "portfolio handles in the snapshot's order: wallet by wallet",
  );
  t.same([y.isMmm[y.walletOf(MM)], y.depositOf(y.portfolio(MM, 0)!)], [1, usdc(500_000)]);
  t.same([y.portfolioOneOf[y.walletOf(BOB)], y.portfolioOneOf[y.walletOf(MM)]], [y.portfolio(BOB, 1)!.handle, -1], 'portfolio 1 in the wallet row again (none for a wallet without one)');
  t.same(back.serialize(), bytes, 'serialized again: the same bytes');
});

t.test('portfolio 1 is found by its wallet row, and agrees with the map of the others', async (t) => {
  const h = listedVenue();
  const a = h.venue.state.accounts;
  h.ok({ type: 'deposit', owner: BOB, portfolioId: 0, amount: usdc(10) });
  const bob = a.walletOf(BOB);
  t.equal(a.portfolioOneOf[bob], -1, 'a wallet with portfolio 0 only: no portfolio 1');
  t.equal(a.portfolioOf(bob, 1), undefined, 'and portfolioOf finds none');
  h.ok({ type: 'create_portfolio', owner: BOB });
  h.ok({ type: 'create_portfolio', owner: BOB });
  const one = a.portfolioOf(bob, 1)!;
  t.same([one.id, one.wallet, a.portfolioOneOf[bob]], [1, bob, one.handle], 'portfolio 1 by its row');
  t.equal(a.portfolios[a.portfolioIds[bob]!.get(1)!], one, "the same as the wallet's map holds");
  t.equal(a.portfolioOf(bob, 2)!.id, 2, 'another id through the map');
  t.equal(a.portfolioOf(-1, 1), undefined, 'no wallet: none');
  // Enough wallets to grow the rows: each one's portfolio 1 is its own.
  for (let i = 0; i < 100; i++) h.fund(`0x${(i + 1).toString(16).padStart(40, '0')}`, usdc(1));
  for (let i = 0; i < 100; i++) {
    const owner = `0x${(i + 1).toString(16).padStart(40, '0')}`;
    const w = a.walletOf(owner);
    if (a.portfolioOf(w, 1)?.owner !== owner) t.fail(`wallet ${i}: portfolio 1 is not its own`);
  }
  t.equal(a.portfolioOneOf.length >= a.walletCount, true, 'the row grew with the wallets');
});
