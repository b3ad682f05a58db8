/**
 * A JetStream key-value bucket as the shared stores use it (kvStores.ts): failures of an
 * unreachable bucket as UnavailableError (`guarded`), and a bucket mirrored in memory by a
 * watch (`Mirror`), with the JSON codec and key rule they share.
 */
import type { KV, KvEntry, QueuedIterator } from 'nats';
import type { Logger, MaybePromise } from './types.ts';
import { UnavailableError } from './unavailable.ts';

export const encoder = new TextEncoder();
export const decoder = new TextDecoder();
export const encode = (v: unknown): Uint8Array => encoder.encode(JSON.stringify(v));
export const parse = (e: KvEntry): unknown => {
  try {
    return JSON.parse(decoder.decode(e.value)) as unknown;
  } catch {
    return null;
  }
};
/** A KV key token: no dots (they separate tokens), no wildcards, nothing a client could use to reach another key. */
export const TOKEN = /^[-_=A-Za-z0-9]{1,200}$/;
/** The bucket refused a write because the key changed (or exists, for a create): JetStream's "wrong last sequence". */
export function isWrongRevision(e: unknown): boolean {
  const err = e as { api_error?: { err_code?: number }; message?: string } | null;
  return err?.api_error?.err_code === 10071 || /wrong last sequence/i.test(err?.message ?? '');
}

/** The bucket operations whose failures are the bucket's unavailability (not a revision check). */
const OPERATIONS = new Set(['get', 'put', 'create', 'update', 'delete', 'keys', 'purge']);

/**
 * A bucket whose operations fail as UnavailableError (HTTP 503 `unavailable`, try again)
 * when NATS does not answer (a node lost, an election, the connection down), never as an
 * unknown error (a 500). A revision check that failed stays what it is: the stores decide
 * one-time things by it.
 */
export function guarded(kv: KV, bucket: string): KV {
  return new Proxy(kv, {
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop);
      if (typeof v !== 'function') return v;
      if (typeof prop !== 'string' || !OPERATIONS.has(prop)) return (v as (...a: unknown[]) => unknown).bind(target);
      return (...args: unknown[]) =>
        (v as (...a: unknown[]) => Promise<unknown>).apply(target, args).catch((e: unknown) => {
          throw isWrongRevision(e) || e instanceof TypeError ? e : new UnavailableError(`the shared stores do not answer (${bucket}: ${(e as Error).message}); try again`);
        });
    },
  });
}

export type Slot<T> = { value: T | null; revision: number };

/**
 * A bucket mirrored in memory by a watch. A slot only moves to a later revision, so a watch
 * that lags behind a local write cannot undo it. A deleted key stays as a tombstone, so a
 * revoked key or session presented again is refused without a round trip; beyond
 * MAX_TOMBSTONES they are dropped (a dropped one costs one bucket read when presented).
 */
const MAX_TOMBSTONES = 100_000;

export class Mirror<T> {
  private readonly slots = new Map<string, Slot<T>>();
  private tombstones = 0;
  private watcher: QueuedIterator<KvEntry> | null = null;

  constructor(
    readonly kv: KV,
    private readonly name: string,
    private readonly decode: (key: string, v: unknown) => T | null,
    private readonly log: Logger,
    /** Keys of the bucket the mirror leaves out (the user counter). */
    private readonly skip: (key: string) => boolean = () => false,
  ) {}

  async start(timeoutMs: number): Promise<void> {
    let initialized!: () => void;
    const ready = new Promise<void>((resolve) => (initialized = resolve));
    this.watcher = await this.kv.watch({ key: '>', initializedFn: () => initialized() });
    const watcher = this.watcher;
    void (async () => {
      for await (const e of watcher) this.receive(e);
    })().catch((err: unknown) => this.log.error(`stores: the watch of ${this.name} ended: ${(err as Error).message}`));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`stores: the bucket ${this.name} did not load within ${timeoutMs} ms`)), timeoutMs)));
    try {
      await Promise.race([ready, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private receive(e: KvEntry): void {
    if (this.skip(e.key)) return;
    if (e.operation === 'PUT') {
      const v = this.decode(e.key, parse(e));
      if (v !== null) this.apply(e.key, v, e.revision);
      else this.log.error(`stores: a record in ${this.name} failed its check; treated as absent`, { key: e.key });
      return;
    }
    this.set(e.key, null, e.revision);
  }

  private set(key: string, value: T | null, revision: number): void {
    const s = this.slots.get(key);
    if (s !== undefined && s.revision >= revision) return;
    if ((s === undefined || s.value !== null) && value === null) this.tombstones++;
    if (s !== undefined && s.value === null && value !== null) this.tombstones--;
    this.slots.set(key, { value, revision });
    if (this.tombstones > MAX_TOMBSTONES) {
      for (const [k, slot] of this.slots) if (slot.value === null) this.slots.delete(k);
      this.tombstones = 0;
    }
  }

  apply(key: string, value: T, revision: number): void {
    this.set(key, value, revision);
  }

  /** Gone for every read from now on (at the revision it had: the watch's delete comes later). */
  forget(key: string): void {
    const s = this.slots.get(key);
    if (s !== undefined && s.value === null) return;
    this.tombstones++;
    this.slots.set(key, { value: null, revision: s?.revision ?? 0 });
  }

  peek(key: string): Slot<T> | undefined {
    return this.slots.get(key);
  }

  /** From the mirror when it holds the key (synchronously), else from the bucket. */
  get(key: string): MaybePromise<T | null> {
    const s = this.slots.get(key);
    if (s !== undefined) return s.value;
    return this.fetch(key).then((slot) => slot?.value ?? null);
  }

  /** The bucket's current record (one round trip), folded into the mirror. */
  async fetch(key: string): Promise<Slot<T> | null> {
    const e = await this.kv.get(key);
    if (e === null || e.operation !== 'PUT') return null;
    const v = this.decode(key, parse(e));
    if (v === null) return null;
    this.apply(key, v, e.revision);
    return { value: v, revision: e.revision };
  }

  *entries(): Generator<[string, T]> {
    for (const [k, s] of this.slots) if (s.value !== null) yield [k, s.value];
  }

  async put(key: string, value: T, stored: unknown = value): Promise<void> {
    this.apply(key, value, await this.kv.put(key, encode(stored)));
  }

  /** Create only (false when the key exists). */
  async create(key: string, value: T, stored: unknown = value): Promise<boolean> {
    try {
      this.apply(key, value, await this.kv.create(key, encode(stored)));
      return true;
    } catch (e) {
      if (isWrongRevision(e)) return false;
      throw e;
    }
  }

  async remove(key: string): Promise<void> {
    this.forget(key);
    await this.kv.delete(key);
  }

  stop(): void {
    this.watcher?.stop();
  }
}

