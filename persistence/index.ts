/** Public entry point of the persistence layer (docs/persistence.md). */
export type { Command, Journal, JournalEntry, Logger, Replayable, RecoveryResult, Snapshot, SnapshotCandidate, SnapshotStore } from './types.ts';
export { Durability } from './types.ts';
export { openStorage, memoryStorage, type MemoryStorage, type OpenStorageOptions, type Storage, type StorageStats } from './storage.ts';
export { recover, RecoveryError, JournalDamageError } from './recover.ts';
export { checkLmdbFile, LmdbFileError } from './lmdbFileCheck.ts';
export { Snapshotter, type SnapshotOutcome, type SnapshotterOptions } from './snapshotter.ts';
export { DataDirInUseError, LOCK_FILE } from './dataDirLock.ts';
export { encodeValue, decodeValue, tryDecodeValue, CodecError } from './codec.ts';
export { encodeFrame, decodeFrame } from './frame.ts';
export { silentLogger } from './silentLogger.ts';
export * from './stores.ts';
