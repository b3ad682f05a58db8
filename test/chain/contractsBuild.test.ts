/**
 * The committed artifacts (contracts/build) are exactly what chain/build.ts compiles from
 * contracts/src: a change to a contract without `npm run build:contracts` fails here.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { keccak256, toHex } from 'viem';
import { abisText, artifactText, BUILD_DIR, compileContracts, CONTRACTS } from '../../chain/build.ts';
import { bytecodeOf } from '../../chain/artifacts.ts';

t.test('contracts/build is the compile of contracts/src', async (t) => {
  const started = Date.now();
  const { artifacts, warnings } = compileContracts();
  t.comment(`compiled in ${Date.now() - started} ms`);
  t.same(warnings, [], 'no compiler warnings');
  for (const name of CONTRACTS) {
    t.equal(readFileSync(join(BUILD_DIR, `${name}.json`), 'utf8'), artifactText(artifacts[name]), `${name}.json`);
    const size = (artifacts[name].deployedBytecode.length - 2) / 2;
    t.ok(size <= 24_576, `${name}: ${size} bytes of runtime code, within EIP-170`);
  }
  t.equal(readFileSync(join(BUILD_DIR, 'abis.ts'), 'utf8'), abisText(artifacts), 'abis.ts');
  t.equal(bytecodeOf('OrderBook').deployedBytecode, artifacts.OrderBook.deployedBytecode, 'artifacts.ts reads the same code');
});

t.test('the type hash the order book holds as a literal is PlaceOrder\'s', async (t) => {
  const src = readFileSync(join(BUILD_DIR, '..', 'src', 'BatchFills.sol'), 'utf8');
  const literal = /PLACE_ORDER_TYPEHASH = (0x[0-9a-f]{64});/.exec(src)?.[1];
  t.equal(literal, keccak256(toHex('PlaceOrder(bytes32 seriesId,uint256 portfolioId,bool isBuy,uint32 tick,uint128 size,uint32 expiry,uint256 nonce,uint256 deadline)')));
});
