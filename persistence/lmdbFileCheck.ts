/**
 * A check of DATA_DIR/lmdb/data.mdb before LMDB maps it. LMDB memory-maps the file and
 * trusts it: a page the meta page says exists but the file does not hold (a truncated copy,
 * a full disk during a restore, `truncate`) is a SIGBUS on first touch, and the process dies
 * with a bare `Bus error`. Reading the file's two meta pages first turns that into a message
 * naming the file.
 *
 * What is checked (LMDB 0.9 layout as built by lmdb-js, 64-bit, little-endian):
 * - the file holds both meta pages, at least one valid (magic 0xBEEFC0DE, data version 2,
 *   a power-of-two page size from 512 to 65,536);
 * - the file is a whole number of pages (LMDB writes whole pages only);
 * - the newest meta (highest txnid) says the data runs to page `last_pg`: the file must hold
 *   pages 0..last_pg. Pages at the end that a transaction allocated and freed again before
 *   commit are never written, so the file may legitimately stop short of `last_pg` by pages
 *   that are free: those are read from the free-page database (a few pages) and excused.
 * Everything is read with plain file reads; nothing is mapped.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export class LmdbFileError extends Error {
  override name = 'LmdbFileError';
}

const MAGIC = 0xbeefc0de;
const DATA_VERSION = 2;
const PAGEHDRSZ = 24;
const META = PAGEHDRSZ; // the meta struct follows the page header
const P_BRANCH = 0x01;
const P_LEAF = 0x02;
const P_LEAF2 = 0x20;
const F_BIGDATA = 0x01;
const P_INVALID = 0xffffffffffffffffn;

type Meta = { psize: number; lastPg: number; txnid: bigint; freeRoot: bigint; mainRoot: bigint; mapsize: bigint };

function readMeta(buf: Buffer, at: number): Meta | null {
  if (buf.length < at + 168) return null;
  if (buf.readUInt32LE(at + META) !== MAGIC || (buf.readUInt32LE(at + META + 4) & 0xffff) !== DATA_VERSION) return null;
  const psize = buf.readUInt32LE(at + META + 24); // mm_dbs[FREE_DBI].md_pad
  if (psize < 512 || psize > 65_536 || (psize & (psize - 1)) !== 0) return null;
  const db = (i: number) => at + META + 24 + i * 48;
  return {
    psize,
    mapsize: buf.readBigUInt64LE(at + META + 16),
    freeRoot: buf.readBigUInt64LE(db(0) + 40),
    mainRoot: buf.readBigUInt64LE(db(1) + 40),
    lastPg: Number(buf.readBigUInt64LE(at + META + 120)),
    txnid: buf.readBigUInt64LE(at + META + 128),
  };
}

/** Throws LmdbFileError naming `file` when it cannot be mapped safely; returns quietly for a file LMDB will create (absent). */
export function checkLmdbFile(file: string): void {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // a new environment
    throw new LmdbFileError(`${file}: cannot be read (${(e as Error).message})`);
  }
  try {
    const size = fstatSync(fd).size;
    const read = (pos: number, len: number): Buffer => {
      const b = Buffer.alloc(len);
      const n = readSync(fd, b, 0, len, pos);
      return b.subarray(0, n);
    };
    const hint = 'restore DATA_DIR/lmdb from a backup (docs/persistence.md, "Backup and restore")';
    if (size === 0) throw new LmdbFileError(`${file} is empty (0 bytes): the LMDB environment is gone (a truncated copy?); refusing to start with an empty venue; ${hint}, or delete the file to start a new venue on purpose`);
    const m0 = readMeta(read(0, 168), 0);
    const psize = m0?.psize ?? 4096;
    const m1 = readMeta(read(psize, 168), 0);
    const metas = [m0, m1].filter((m): m is Meta => m !== null);
    if (metas.length === 0) throw new LmdbFileError(`${file} (${size} bytes) has no valid LMDB meta page (checked: magic, version and page size of pages 0 and 1); it is not an LMDB environment or its start is damaged; ${hint}`);
    const meta = metas.reduce((a, b) => (b.txnid > a.txnid ? b : a));
    const pages = Math.floor(size / meta.psize);
    const needed = meta.lastPg + 1;
    if (size % meta.psize !== 0) {
      throw new LmdbFileError(`${file} is truncated: ${size} bytes is not a whole number of ${meta.psize}-byte pages (LMDB writes whole pages only; its meta page records data up to page ${meta.lastPg}); opening it could crash the process (SIGBUS); ${hint}`);
    }
    if (pages >= needed) return;
    const short = (detail: string) =>
      new LmdbFileError(
        `${file} is truncated: ${size} bytes (${pages} pages of ${meta.psize}) but its LMDB meta page (txn ${meta.txnid}, map size ${meta.mapsize}) records data up to page ${meta.lastPg} ` +
          `(${needed * meta.psize} bytes)${detail}; opening it would crash the process (SIGBUS); ${hint}`,
      );
    for (const root of [meta.mainRoot, meta.freeRoot]) if (root !== P_INVALID && root >= BigInt(pages)) throw short(`, and a database root (page ${root}) is past its end`);
    // The missing pages are fine only if every one of them is free.
    const free = freePages(meta, pages, read, pages, needed);
    if (free === null) throw short(', and its free-page list cannot be read');
    for (let p = pages; p < needed; p++) if (!free.has(p)) throw short(`; page ${p} is in use`);
  } finally {
    closeSync(fd);
  }
}

function addIn(out: Set<number>, first: number, n: number, from: number, to: number): void {
  for (let p = Math.max(first, from); p < Math.min(first + n, to); p++) out.add(p);
}

/** The free pages in [from, to) per the free-page database, or null when a page of it is missing or malformed. */
function freePages(meta: Meta, pages: number, read: (pos: number, len: number) => Buffer, from: number, to: number): Set<number> | null {
  const out = new Set<number>();
  if (meta.freeRoot === P_INVALID) return out;
  const stack = [Number(meta.freeRoot)];
  let visited = 0;
  while (stack.length > 0) {
    const pgno = stack.pop()!;
    if (pgno >= pages || ++visited > 1_000_000) return null;
    const page = read(pgno * meta.psize, meta.psize);
    if (page.length < meta.psize) return null;
    const flags = page.readUInt16LE(18);
    const n = page.readUInt16LE(20) >> 1; // mp_lower / 2: the node count
    if (flags & P_LEAF2) return null;
    for (let i = 0; i < n; i++) {
      const node = PAGEHDRSZ + page.readUInt16LE(PAGEHDRSZ + 2 * i);
      if (node + 8 > meta.psize) return null;
      const lo = page.readUInt16LE(node);
      const hi = page.readUInt16LE(node + 2);
      const nflags = page.readUInt16LE(node + 4);
      const ksize = page.readUInt16LE(node + 6);
      if (flags & P_BRANCH) {
        stack.push(lo + hi * 0x10000 + nflags * 0x100000000);
        continue;
      }
      if (!(flags & P_LEAF)) return null;
      const dsize = lo + hi * 0x10000;
      let data: Buffer;
      if (nflags & F_BIGDATA) {
        const ov = Number(page.readBigUInt64LE(node + 8 + ksize));
        const ovPages = Math.floor((PAGEHDRSZ - 1 + dsize) / meta.psize) + 1;
        if (ov + ovPages > pages) return null;
        data = read(ov * meta.psize + PAGEHDRSZ, dsize);
      } else data = page.subarray(node + 8 + ksize, node + 8 + ksize + dsize);
      if (data.length < 8) continue;
      // An ID list: [count] then entries; lmdb-js's LMDB stores a run as [-n][first] (pages first..first+n-1), 0 is an empty slot.
      const count = Number(data.readBigUInt64LE(0));
      for (let k = 1; k <= count && (k + 1) * 8 <= data.length; k++) {
        const v = data.readBigInt64LE(k * 8);
        if (v > 0n) addIn(out, Number(v), 1, from, to);
        else if (v < 0n && (k + 2) * 8 <= data.length) addIn(out, Number(data.readBigInt64LE(++k * 8)), Number(-v), from, to);
      }
    }
  }
  return out;
}
