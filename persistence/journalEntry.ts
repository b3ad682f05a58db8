/**
 * Shared by both journals: how a command becomes stored bytes and how stored bytes are
 * checked on the way back (checksum, decode, shape, and that the key is the command's seq).
 */
import type { Command, JournalEntry } from './types.ts';
import { decodeFrame, encodeFrame, type FrameResult } from './frame.ts';

export function isCommand(v: unknown): v is Command {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const c = v as Record<string, unknown>;
  return Number.isSafeInteger(c.seq) && (c.seq as number) >= 1 && typeof c.ts === 'number' && typeof c.type === 'string';
}

/** Throws for a malformed command or a seq out of order: both are caller bugs, not expected input. */
export function encodeCommand(command: Command, expectedSeq: number): Buffer {
  if (!isCommand(command)) throw new TypeError('journal: a command needs an integer seq >= 1, a numeric ts and a string type');
  if (command.seq !== expectedSeq) throw new RangeError(`journal: append of seq ${command.seq}, expected ${expectedSeq} (lastSeq()+1)`);
  return encodeFrame(command);
}

export function checkEntry(seq: number, bytes: Uint8Array): JournalEntry {
  return checkDecoded(seq, decodeFrame(bytes));
}

/** The entry for an already verified-and-decoded frame stored under key `seq`. */
export function checkDecoded(seq: number, frame: FrameResult): JournalEntry {
  if (!frame.ok) return { ok: false, seq, reason: frame.reason };
  if (!isCommand(frame.value)) return { ok: false, seq, reason: 'not a command' };
  if (frame.value.seq !== seq) return { ok: false, seq, reason: `holds seq ${frame.value.seq}` };
  return { ok: true, seq, command: frame.value };
}

/** `read` on top of `scan`: in order from fromSeq, stopping at the first bad entry or gap. */
export function* readChecked(entries: Iterable<JournalEntry>, fromSeq: number): Generator<Command> {
  let expected = -1;
  for (const entry of entries) {
    if (!entry.ok) return;
    if (expected !== -1 && entry.seq !== expected) return;
    if (expected === -1 && entry.seq < fromSeq) continue;
    yield entry.command;
    expected = entry.seq + 1;
  }
}
