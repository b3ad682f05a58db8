import t from 'tap';
import { getAddress } from 'viem';
import { loadConfig, contractAddresses } from '../../gateway/config.ts';

t.test('the embedded defaults of api.md', async (t) => {
  const r = loadConfig({});
  if (!r.ok) throw new Error(r.errors.join('; '));
  const c = r.config;
  t.equal(c.port, 8080);
  t.equal(c.host, '127.0.0.1');
  t.equal(c.dataDir, './data');
  t.equal(c.serviceName, 'Diffusal');
  t.equal(c.network, 'local');
  t.equal(c.chainId, 10143);
  t.same(c.siweDomains, []);
  t.same([...c.adminAddresses], []);
  t.same(c.pairs.map((p) => [p.symbol, p.tickDecimals]), [['BTC-USDC', 2], ['ETH-USDC', 3]]);
  t.equal(c.oracle, 'simulated');
  t.ok(c.workers >= 1);
  t.equal(c.logLevel, 'info');
});

t.test('every bad value is refused with a message naming the variable', async (t) => {
  const cases: Record<string, string> = {
    PORT: '70000',
    NETWORK: 'devnet',
    CHAIN_ID: 'abc',
    ADMIN_ADDRESSES: '0x123',
    PAIRS: 'btc/usdc',
    ORACLE: 'chainlink',
    WORKERS: '0',
    LOG_LEVEL: 'loud',
    SERVICE_NAME: 'has space',
    RATE_LIMITS: '{"nope":{}}',
    PUBLIC_JOURNAL: 'yes',
  };
  for (const [name, value] of Object.entries(cases)) {
    const r = loadConfig({ [name]: value });
    t.notOk(r.ok, `${name}=${value} refused`);
    if (!r.ok) t.match(r.errors.join('\n'), name, `message names ${name}`);
  }
  const mixed = loadConfig({ PAIRS: 'BTC-USDC,ETH-USDT' });
  t.notOk(mixed.ok, 'pairs must share one collateral');
});

t.test('admin addresses are normalised; rate limits parse', async (t) => {
  const r = loadConfig({ ADMIN_ADDRESSES: '0x00000000000000000000000000000000000000ad, 0xABCDEFabcdef0000000000000000000000000000', RATE_LIMITS: '{"markets":{"anonymous":1200,"tier1":null}}' });
  if (!r.ok) throw new Error(r.errors.join('; '));
  t.same([...r.config.adminAddresses], [getAddress('0x00000000000000000000000000000000000000ad'), getAddress('0xabcdefabcdef0000000000000000000000000000')], 'EIP-55');
  t.same(r.config.rateLimits, { markets: { anonymous: 1200, tier1: null } });
});

t.test('contract addresses depend on the service name and chain id only', async (t) => {
  const a = contractAddresses('Diffusal', 10143);
  t.same(contractAddresses('Diffusal', 10143), a, 'stable');
  t.not(contractAddresses('Other', 10143).orderBook, a.orderBook);
  t.not(contractAddresses('Diffusal', 1).rfq, a.rfq);
  t.equal(new Set(Object.values(a)).size, 8, 'eight distinct contracts');
});

t.test('SIWE_DOMAIN: required off local, a comma-separated list of host[:port]', async (t) => {
  for (const network of ['testnet', 'mainnet']) {
    const r = loadConfig({ NETWORK: network });
    t.notOk(r.ok, `${network} without SIWE_DOMAIN does not start`);
    if (!r.ok) t.match(r.errors.join('\n'), `SIWE_DOMAIN must be set on NETWORK=${network}`);
    const set = loadConfig({ NETWORK: network, SIWE_DOMAIN: 'app.example.com', CHAIN: 'none' });
    t.ok(set.ok && set.config.siweDomains.length === 1 && set.config.siweDomains[0] === 'app.example.com', `${network} with SIWE_DOMAIN starts`);
  }
  const list = loadConfig({ SIWE_DOMAIN: ' App.Example.com, www.example.com:8443,app.example.com,[::1]:8080,10.0.0.2' });
  if (!list.ok) throw new Error(list.errors.join('; '));
  t.same(list.config.siweDomains, ['app.example.com', 'www.example.com:8443', '[::1]:8080', '10.0.0.2'], 'trimmed, lowercased, deduplicated');
  for (const bad of ['https://app.example.com', 'app.example.com/login', 'user@app.example.com', 'app.example.com:99999', 'app example.com', '-app.example.com']) {
    const r = loadConfig({ SIWE_DOMAIN: bad });
    t.notOk(r.ok, `${bad} refused`);
    if (!r.ok) t.match(r.errors.join('\n'), 'SIWE_DOMAIN', 'the message names SIWE_DOMAIN');
  }
});

t.test('PUBLIC_JOURNAL: off by default, 1 turns it on, refused with JOURNAL=nats', async (t) => {
  const off = loadConfig({});
  t.equal(off.ok && off.config.publicJournal, false);
  const on = loadConfig({ PUBLIC_JOURNAL: '1' });
  t.equal(on.ok && on.config.publicJournal, true);
  const nats = loadConfig({ PUBLIC_JOURNAL: '1', JOURNAL: 'nats', NATS_URL: 'nats://127.0.0.1:4222' });
  t.notOk(nats.ok);
  if (!nats.ok) t.match(nats.errors.join('\n'), /PUBLIC_JOURNAL=1 needs JOURNAL=lmdb/);
});
