import t from 'tap';
import { ZERO_ADDRESS, isHex, parseAddress, parseBytes32 } from '../../../engine/domain/hex.ts';

const ID = '0x' + 'ab'.repeat(32);

t.test('parseBytes32', async (t) => {
  t.same(parseBytes32(ID, 'seriesId'), { ok: true, value: ID });
  t.same(parseBytes32(ID.toUpperCase().replace('0X', '0x'), 'seriesId'), { ok: true, value: ID }, 'lowercases');
  t.same(parseBytes32('0X' + 'AB'.repeat(32), 'seriesId'), { ok: true, value: ID }, '0X prefix');
  const cases: Array<[unknown, RegExp]> = [
    [undefined, /^seriesId is required$/],
    ['', /^seriesId is required$/],
    [42, /^seriesId must be a hex string$/],
    ['ab'.repeat(32), /^seriesId must be a hex string$/],
    ['0x' + 'zz'.repeat(32), /^seriesId must be a hex string$/],
    ['0x' + 'ab'.repeat(31), /^seriesId must be a valid bytes32 hex/],
    ['0x' + 'ab'.repeat(33), /^seriesId must be a valid bytes32 hex/],
    ['0x' + 'a'.repeat(63), /valid bytes32/],
    [' ' + ID, /hex string/],
    [ID + ' ', /hex string/],
  ];
  for (const [text, re] of cases) {
    const r = parseBytes32(text, 'seriesId');
    t.equal(r.ok, false, `refuses ${JSON.stringify(text)}`);
    if (!r.ok) {
      t.equal(r.error.field, 'seriesId');
      t.match(r.error.message, re);
    }
  }
});

t.test('parseAddress', async (t) => {
  const checksummed = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'; // EIP-55 test vector
  t.same(parseAddress(checksummed.toLowerCase(), 'walletAddress'), { ok: true, value: checksummed });
  t.same(parseAddress('0x' + checksummed.slice(2).toUpperCase(), 'walletAddress'), { ok: true, value: checksummed });
  t.same(parseAddress(checksummed, 'walletAddress'), { ok: true, value: checksummed });
  // A wrong mixed-case checksum is accepted (input is case-insensitive by decision) and repaired.
  t.same(parseAddress('0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'walletAddress'), { ok: true, value: checksummed });
  t.same(parseAddress(ZERO_ADDRESS, 'address'), { ok: true, value: ZERO_ADDRESS });
  for (const bad of ['0x123', checksummed + '00', checksummed.slice(2), '0x' + 'g'.repeat(40), 12, {}]) {
    const r = parseAddress(bad, 'walletAddress');
    t.equal(r.ok, false);
    if (!r.ok) t.equal(r.error.message, 'Invalid wallet address');
  }
  const other = parseAddress('0x12', 'mmm');
  t.equal(!other.ok && other.error.message, 'Invalid mmm address');
  const missing = parseAddress(undefined, 'walletAddress');
  t.equal(!missing.ok && missing.error.message, 'walletAddress is required');
});

t.test('isHex', async (t) => {
  t.ok(isHex('0x'));
  t.ok(isHex('0xdeadBEEF'));
  t.notOk(isHex('deadbeef'));
  t.notOk(isHex('0xg'));
  t.notOk(isHex(5));
});
