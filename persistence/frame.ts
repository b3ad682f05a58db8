/**
 * Every value persistence writes to LMDB is a frame:
 *
 *   [crc32 u32be over bytes 4..end][format u8 = 1][codec payload]
 *
 * LMDB itself never tears a committed value (copy-on-write pages, atomic meta switch), so
 * the checksum is for what LMDB cannot see: bit rot, a bad disk, a restored partial copy, an
 * external tool writing into the file. A frame that fails is reported, never decoded.
 */
import { encodeWithHeader, tryDecodeValue } from './codec.ts';
import { crc32 } from './crc32.ts';

const HEADER = 5;
const FORMAT = 1;

/** Encode `value` as a checksummed frame (a fresh Buffer). Throws TypeError for non-plain data. */
export function encodeFrame(value: unknown): Buffer {
  const out = encodeWithHeader(value, HEADER);
  out[4] = FORMAT;
  out.writeUInt32BE(crc32(out, 4, out.length), 0);
  return out;
}

export type FrameResult = { ok: true; value: unknown } | { ok: false; reason: string };

/** Verify and decode a frame. Corruption is an expected outcome here and comes back as a reason. */
export function decodeFrame(bytes: Uint8Array): FrameResult {
  return decodeFrameRange(bytes, 0, bytes.length);
}

/**
 * Same, for the frame in bytes[start, end): batches hold many frames, and lmdb-js decoders
 * receive its shared read buffer with the value's size; decoding in place saves a copy.
 */
export function decodeFrameRange(bytes: Uint8Array, start: number, end: number): FrameResult {
  if (end - start < HEADER + 1) return { ok: false, reason: `frame too short (${end - start} bytes)` };
  const stored = ((bytes[start]! << 24) | (bytes[start + 1]! << 16) | (bytes[start + 2]! << 8) | bytes[start + 3]!) >>> 0;
  if (stored !== crc32(bytes, start + 4, end)) return { ok: false, reason: 'checksum mismatch' };
  if (bytes[start + 4] !== FORMAT) return { ok: false, reason: `unknown frame format ${bytes[start + 4]}` };
  return tryDecodeValue(bytes, start + HEADER, end);
}

/** A frame whose bytes a surrounding checksum already verified (a journal batch): skip its own. */
export function decodeFrameVerified(bytes: Uint8Array, start: number, end: number): FrameResult {
  if (end - start < HEADER + 1) return { ok: false, reason: `frame too short (${end - start} bytes)` };
  if (bytes[start + 4] !== FORMAT) return { ok: false, reason: `unknown frame format ${bytes[start + 4]}` };
  return tryDecodeValue(bytes, start + HEADER, end);
}
