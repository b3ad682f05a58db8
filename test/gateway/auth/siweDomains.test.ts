/**
 * Which domains SIWE messages may name (gateway/auth/siweDomains.ts): on local the venue's
 * own listen address for the bound port plus SIWE_DOMAIN; elsewhere SIWE_DOMAIN only.
 */
import t from 'tap';
import { SiweDomains } from '../../../gateway/auth/siweDomains.ts';

t.test('local: 127.0.0.1 and localhost at the bound port, the HOST when specific, SIWE_DOMAIN', async (t) => {
  const plain = new SiweDomains({ network: 'local', host: '127.0.0.1', siweDomains: [] });
  t.same(plain.accepted(), [], 'nothing before the server listens');
  plain.bindPort(43210);
  t.same(plain.accepted(), ['127.0.0.1:43210', 'localhost:43210']);
  const pinned = new SiweDomains({ network: 'local', host: '127.0.0.1', siweDomains: ['app.example.com'] });
  pinned.bindPort(8080);
  t.same(pinned.accepted(), ['127.0.0.1:8080', 'localhost:8080', 'app.example.com']);
  const lan = new SiweDomains({ network: 'local', host: '192.168.1.5', siweDomains: [] });
  lan.bindPort(8080);
  t.same(lan.accepted(), ['127.0.0.1:8080', 'localhost:8080', '192.168.1.5:8080']);
  const v6 = new SiweDomains({ network: 'local', host: '::1', siweDomains: [] });
  v6.bindPort(8080);
  t.same(v6.accepted(), ['127.0.0.1:8080', 'localhost:8080', '[::1]:8080']);
  for (const wildcard of ['0.0.0.0', '::']) {
    const any = new SiweDomains({ network: 'local', host: wildcard, siweDomains: [] });
    any.bindPort(8080);
    t.same(any.accepted(), ['127.0.0.1:8080', 'localhost:8080'], `${wildcard} is no domain`);
  }
});

t.test('testnet and mainnet: SIWE_DOMAIN only, the listen address never', async (t) => {
  for (const network of ['testnet', 'mainnet'] as const) {
    const d = new SiweDomains({ network, host: '127.0.0.1', siweDomains: ['app.example.com', 'www.example.com:8443'] });
    d.bindPort(8080);
    t.same(d.accepted(), ['app.example.com', 'www.example.com:8443'], network);
  }
});
