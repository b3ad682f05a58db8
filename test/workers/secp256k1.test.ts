import t from 'tap';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { getAddress, hexToBytes, keccak256, toBytes } from 'viem';
import { checksumAddress, nativeSecp256k1Loaded, nativeSecp256k1LoadError, recoverAddress, secp256k1Backend } from '../../workers/secp256k1.ts';
import { parseSignatureInto } from '../../workers/signature.ts';
import { random, signers, signHash } from './helpers/fixtures.ts';
import { DIGEST, SIGNER } from './fixtures/signedPlaceOrder.ts';

t.test('the native binding is what runs here (linux-x64 has a prebuild)', async (t) => {
  t.equal(nativeSecp256k1Loaded(), true, nativeSecp256k1LoadError() ?? '');
  t.equal(nativeSecp256k1LoadError(), null);
  t.equal(secp256k1Backend(), 'native');
});

t.test('EIP-55 checksums equal viem getAddress', async (t) => {
  const r = random(21);
  let bad = 0;
  for (let i = 0; i < 3000; i++) {
    const lower = r.address().toLowerCase();
    if (checksumAddress(lower.slice(2)) !== getAddress(lower)) bad++;
  }
  t.equal(bad, 0);
});

t.test('recovers the signing account of each of 40 deterministic keys', async (t) => {
  const rs = new Uint8Array(64);
  for (const [i, s] of signers(40).entries()) {
    const hash = keccak256(toBytes(`message ${i}`));
    const recid = parseSignatureInto(signHash(hash, s.privateKey), rs);
    t.equal(recoverAddress(hexToBytes(hash), rs, recid), s.address, `key ${i}`);
  }
});

t.test('an r that is no curve point recovers nothing, without throwing', async (t) => {
  // x = 5 is not the x-coordinate of a secp256k1 point (5^3 + 7 = 132 is a non-residue mod p).
  const rs = new Uint8Array(64);
  rs[31] = 5;
  rs[63] = 1;
  t.equal(recoverAddress(new Uint8Array(32).fill(1), rs, 0), null);
});

t.test('without the native binding: verifiers refuse to start unless the JS fallback is chosen', async (t) => {
  const child = fileURLToPath(new URL('./fixtures/noNativeChild.ts', import.meta.url));
  const preload = fileURLToPath(new URL('./fixtures/noNativeSecp256k1.cjs', import.meta.url));
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['--require', preload, '--import', 'tsx', child], { timeout: 60_000 }, (err, out, errOut) =>
      err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out),
    );
  });
  const report = JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>;
  t.equal(report.loaded, false);
  t.match(report.loadError, /simulated/);
  t.equal(report.backendBefore, 'none');
  t.match(report.inlineError, /^NativeSecp256k1MissingError: the native secp256k1 binding did not load \(simulated/);
  t.match(report.poolError, /^NativeSecp256k1MissingError/);
  t.equal(report.backendAfter, 'js');
  const expected = [{ digest: DIGEST, signer: SIGNER }];
  t.same(report.inline, expected, 'explicit JS fallback inline recovers the signer');
  t.same(report.pool, expected, 'explicit JS fallback in the pool workers recovers the signer');
  t.equal(report.poolBackend, 'js');
});
