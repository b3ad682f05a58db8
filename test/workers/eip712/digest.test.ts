import t from 'tap';
import { bytesToHex, domainSeparator as viemDomainSeparator, hashMessage, hashTypedData, keccak256, toBytes } from 'viem';
import {
  cancelOrderDigestHex,
  domainSeparator,
  domainSeparatorHex,
  fillQuoteDigest,
  fillQuoteDigestHex,
  orderId,
  personalMessageDigest,
  personalMessageDigestHex,
  placeOrderDigest,
  placeOrderDigestHex,
  placeOrderDigestInto,
  quoteId,
  rfqQuoteDigestHex,
} from '../../../workers/eip712/digest.ts';
import {
  cancelOrderTypes,
  eip712DomainType,
  fillQuoteTypes,
  orderBookDomain,
  placeOrderTypedData,
  placeOrderTypes,
  rfqDomain,
  rfqQuoteTypedData,
  rfqQuoteTypes,
  type PlaceOrderMessage,
} from '../../../workers/eip712/types.ts';
import { cancelOrder, DOMAINS, fillQuote, placeOrder, random, rfqQuote, viemDigest } from '../helpers/fixtures.ts';

const COUNT = 1000;

t.test('domain names, version and separators match viem', async (t) => {
  const ob = orderBookDomain('Diffusal', 10143, '0x5FbDB2315678afecb367f032d93F642f64180aa3');
  t.same(ob, { name: 'DiffusalOptionsOrderBook', version: '1', chainId: 10143, verifyingContract: '0x5FbDB2315678afecb367f032d93F642f64180aa3' });
  const rfq = rfqDomain('Acme', 1, '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512');
  t.equal(rfq.name, 'AcmeOptionsRFQ');
  for (const d of [ob, rfq, rfqDomain('Ünïcode', 4294967296, '0x0000000000000000000000000000000000000001')]) {
    t.equal(domainSeparatorHex(d), viemDomainSeparator({ domain: d }), d.name);
  }
  t.equal(domainSeparator(ob), domainSeparator({ ...ob }), 'cached per domain value');
  t.equal(
    domainSeparatorHex({ ...ob, verifyingContract: '0x5fbdb2315678afecb367f032d93f642f64180aa3' }),
    domainSeparatorHex(ob),
    'address case does not change the separator',
  );
  t.throws(() => domainSeparator({ ...ob, verifyingContract: '0x1234' }), RangeError);
});

t.test(`PlaceOrder: ${COUNT} random messages equal viem hashTypedData`, async (t) => {
  const r = random(11);
  const sep = domainSeparator(DOMAINS.orderBook);
  let bad = 0;
  for (let i = 0; i < COUNT; i++) {
    const m = placeOrder(r);
    if (placeOrderDigestHex(sep, m) !== viemDigest.place(DOMAINS.orderBook, m)) bad++;
  }
  t.equal(bad, 0);
});

t.test(`CancelOrder: ${COUNT} random messages equal viem hashTypedData`, async (t) => {
  const r = random(12);
  const sep = domainSeparator(DOMAINS.orderBook);
  let bad = 0;
  for (let i = 0; i < COUNT; i++) {
    const m = cancelOrder(r);
    if (cancelOrderDigestHex(sep, m) !== viemDigest.cancel(DOMAINS.orderBook, m)) bad++;
  }
  t.equal(bad, 0);
});

t.test(`RfqQuote: ${COUNT} random messages equal viem hashTypedData`, async (t) => {
  const r = random(13);
  const sep = domainSeparator(DOMAINS.rfq);
  let bad = 0;
  for (let i = 0; i < COUNT; i++) {
    const m = rfqQuote(r);
    if (rfqQuoteDigestHex(sep, m) !== viemDigest.quote(DOMAINS.rfq, m)) bad++;
  }
  t.equal(bad, 0);
});

t.test(`FillQuote: ${COUNT} random messages equal viem hashTypedData`, async (t) => {
  const r = random(14);
  const sep = domainSeparator(DOMAINS.rfq);
  let bad = 0;
  for (let i = 0; i < COUNT; i++) {
    const m = fillQuote(r);
    if (fillQuoteDigestHex(sep, m) !== viemDigest.fill(DOMAINS.rfq, m)) bad++;
  }
  t.equal(bad, 0);
  const m = fillQuote(r);
  t.equal(bytesToHex(fillQuoteDigest(sep, m)), viemDigest.fill(DOMAINS.rfq, m), 'bytes variant');
});

t.test('orderId and quoteId are the digests; the typed-data envelopes hash the same in viem', async (t) => {
  const r = random(15);
  const place = placeOrder(r);
  const quote = rfqQuote(r);
  const id = orderId(domainSeparator(DOMAINS.orderBook), place);
  t.match(id, /^0x[0-9a-f]{64}$/);
  t.equal(id, hashTypedData(placeOrderTypedData(DOMAINS.orderBook, place)));
  t.equal(quoteId(domainSeparator(DOMAINS.rfq), quote), hashTypedData(rfqQuoteTypedData(DOMAINS.rfq, quote)));
  t.not(id, orderId(domainSeparator(DOMAINS.rfq), place), 'the domain is part of the id');
});

t.test('personal_sign digest equals viem hashMessage (ASCII, multi-byte UTF-8, long, empty)', async (t) => {
  const r = random(16);
  const texts = ['', 'hello', 'é€😀', 'x'.repeat(5000)];
  for (let i = 0; i < 300; i++) texts.push(r.text());
  let bad = 0;
  for (const text of texts) if (personalMessageDigestHex(text) !== hashMessage(text)) bad++;
  t.equal(bad, 0);
  t.equal(bytesToHex(personalMessageDigest('abc')), hashMessage('abc'));
});

t.test('a field outside its Solidity type is reported, never encoded', async (t) => {
  const sep = domainSeparator(DOMAINS.orderBook);
  const good = placeOrder(random(17));
  const cases: Array<[Partial<Record<keyof PlaceOrderMessage, unknown>>, RegExp]> = [
    [{ tick: 2 ** 32 }, /^tick/],
    [{ tick: -1 }, /^tick/],
    [{ tick: 1.5 }, /^tick/],
    [{ expiry: Number.NaN }, /^expiry/],
    [{ size: 1n << 128n }, /^size/],
    [{ size: -1n }, /^size/],
    [{ portfolioId: 1n << 256n }, /^portfolioId/],
    [{ nonce: 5 }, /^nonce/],
    [{ deadline: '1' }, /^deadline/],
    [{ isBuy: 1 }, /^isBuy/],
    [{ seriesId: '0x1234' }, /^seriesId/],
    [{ seriesId: `0x${'zz'.repeat(32)}` }, /^seriesId/],
    [{ seriesId: `0X${'11'.repeat(32)}` }, /^seriesId/],
  ];
  const out = new Uint8Array(32);
  for (const [patch, field] of cases) {
    const m = { ...good, ...patch } as PlaceOrderMessage;
    t.match(placeOrderDigestInto(sep, m, out, 0), field, JSON.stringify(patch, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)));
    t.throws(() => placeOrderDigest(sep, m), RangeError);
  }
  // The limits themselves are valid, and a bigint tick in range is accepted like viem does.
  const edge = { ...good, tick: 2 ** 32 - 1, size: (1n << 128n) - 1n, portfolioId: (1n << 256n) - 1n };
  t.equal(placeOrderDigestHex(sep, edge), viemDigest.place(DOMAINS.orderBook, edge));
  const bigTick = { ...good, tick: 7n } as unknown as PlaceOrderMessage;
  t.equal(placeOrderDigestHex(sep, bigTick), viemDigest.place(DOMAINS.orderBook, { ...good, tick: 7 }));
  t.equal(placeOrderDigestInto(sep, edge, out, 0), null);
});

t.test('the type definitions are exactly the interface and api.md field orders', async (t) => {
  const encode = (types: Record<string, readonly { name: string; type: string }[]>): string =>
    Object.entries(types).map(([name, fields]) => `${name}(${fields.map((f) => `${f.type} ${f.name}`).join(',')})`).join('');
  t.equal(encode(placeOrderTypes), 'PlaceOrder(bytes32 seriesId,uint256 portfolioId,bool isBuy,uint32 tick,uint128 size,uint32 expiry,uint256 nonce,uint256 deadline)');
  t.equal(encode(cancelOrderTypes), 'CancelOrder(bytes32 orderId,uint256 nonce,uint256 deadline)');
  t.equal(
    encode(rfqQuoteTypes),
    'RfqQuote(address mmm,address taker,bytes32 seriesId,bool takerIsBuying,uint256 price,uint256 size,uint256 nonce,uint256 quoteExpiry,bytes32 pairId,uint256 strike,uint256 optionExpiry,bool isCall)',
  );
  t.equal(encode(fillQuoteTypes), 'FillQuote(bytes32 quoteId,uint256 portfolioId,uint256 fillSize,uint256 nonce,uint256 deadline)');
  t.equal(encode({ EIP712Domain: eip712DomainType }), 'EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)');
  // Golden type hashes, as published in docs/signatures.md.
  t.equal(keccak256(toBytes(encode(placeOrderTypes))), '0x59ccacfeaa66b9e175a7697adb1542c49cd1f9903d5a8362324a045d79fa16fb');
  t.equal(keccak256(toBytes(encode(rfqQuoteTypes))), '0x009f82a5cb268fb5cd22eb16b8cd2749f66a7ee8c37f651f0e524e4bf071af0f');
});
