/** The codec's wire tags and limits, shared by the writer (codec.ts) and the reader (codecReader.ts). */

export const Tag = {
  null: 0x00,
  false: 0x01,
  true: 0x02,
  undefined: 0x03,
  uint8: 0x04,
  int32: 0x05,
  float64: 0x06,
  string: 0x07,
  bigPositive: 0x08,
  bigNegative: 0x09,
  int64: 0x0a,
  array: 0x0b,
  object: 0x0c,
  bytes: 0x0d,
} as const;

/** Deeper nesting is refused on both sides (it would be a cycle or hostile input, not a command). */
export const MAX_DEPTH = 200;

/** Thrown by the reader on malformed input; `tryDecodeValue` turns it into a value. */
export class CodecError extends Error {
  override name = 'CodecError';
}
