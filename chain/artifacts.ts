/**
 * The compiled contracts (contracts/build, written by chain/build.ts and committed): their
 * init code and runtime code from the JSON artifacts, their ABIs typed `as const` from
 * contracts/build/abis.ts (the same compile), and every custom error of every contract in one
 * list, for decoding a revert of settle() that any of them raised.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hex } from 'viem';
import * as built from '../contracts/build/abis.ts';

export * from '../contracts/build/abis.ts';

export const BUILD_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'contracts', 'build');

export const abis = {
  MockCollateralToken: built.mockCollateralTokenAbi,
  Oracle: built.oracleAbi,
  SeriesRegistry: built.seriesRegistryAbi,
  Quoter: built.quoterAbi,
  PositionManager: built.positionManagerAbi,
  CollateralVault: built.collateralVaultAbi,
  Rfq: built.rfqAbi,
  OrderBook: built.orderBookAbi,
} as const;
export type ArtifactName = keyof typeof abis;

export type Bytecodes = { bytecode: Hex; deployedBytecode: Hex };

const cache = new Map<ArtifactName, Bytecodes>();

/** A contract's init code (`bytecode`, without constructor arguments) and runtime code. */
export function bytecodeOf(name: ArtifactName): Bytecodes {
  let b = cache.get(name);
  if (b === undefined) {
    const json = JSON.parse(readFileSync(join(BUILD_DIR, `${name}.json`), 'utf8')) as Bytecodes;
    b = { bytecode: json.bytecode, deployedBytecode: json.deployedBytecode };
    cache.set(name, b);
  }
  return b;
}

type AbiEntry = { readonly type: string; readonly name?: string; readonly inputs?: readonly { readonly type: string }[] };

/** Every error of every contract, once each (file-level errors are shared). */
export const errorAbi: readonly AbiEntry[] = (() => {
  const seen = new Set<string>();
  const out: AbiEntry[] = [];
  for (const abi of Object.values(abis) as readonly (readonly AbiEntry[])[]) {
    for (const e of abi) {
      if (e.type !== 'error') continue;
      const key = `${e.name}(${(e.inputs ?? []).map((i) => i.type).join(',')})`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(e);
    }
  }
  return out;
})();
