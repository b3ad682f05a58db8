// @ts-check
/**
 * The public market-data feed of the page: channels of `/ws/public` (docs/streams.md),
 * spread over as many sockets as the per-connection subscription limit asks for (25 by
 * default: a chain of 25 strikes has 50 tickers). The page says which channels it wants
 * and with which handler; the feed subscribes and unsubscribes the difference, re-places
 * the channels of a socket that closed after a growing pause, and learns a lower
 * subscription limit from the server's refusal ("subscription limit exceeded (max N)").
 */

/** @typedef {(data: any) => void} Handler */
/** @typedef {'connecting' | 'live' | 'reconnecting'} FeedStatus */
/**
 * @typedef {object} Socket
 * @property {WebSocket} ws
 * @property {boolean} open
 * @property {Set<string>} channels channels placed on this socket (sent, or sent when it opens)
 * @property {Map<number, string[]>} pending SUBSCRIBE requests not yet answered, by id
 */

export class Feed {
  /** @type {Socket[]} */
  #sockets = [];
  /** @type {Map<string, Handler>} */
  #wanted = new Map();
  /** Channels the server refused as unknown (a series that settled): not asked for again until wanted anew. */
  /** @type {Set<string>} */
  #refused = new Set();
  /** Channels of a request refused as unknown: asked for one by one (SUBSCRIBE is all or nothing) to find which. */
  /** @type {Set<string>} */
  #singly = new Set();
  #capacity;
  #url;
  #onStatus;
  #onSubscribed;
  #nextId = 1;
  #retryMs = 500;
  /** @type {ReturnType<typeof setTimeout> | null} */
  #retryTimer = null;
  #closed = false;

  /**
   * @param {string} url the `/ws/public` URL
   * @param {{ capacity?: number, onStatus?: (status: FeedStatus) => void, onSubscribed?: (channels: string[]) => void }} [options]
   *   `onSubscribed`: the server acknowledged these channels (after a reconnection too): what
   *   happens on them from now on will arrive, so the state before can be read from REST.
   */
  constructor(url, options = {}) {
    this.#url = url;
    this.#capacity = options.capacity ?? 25;
    this.#onStatus = options.onStatus ?? (() => {});
    this.#onSubscribed = options.onSubscribed ?? (() => {});
  }

  /**
   * The channels to hold from now on (canonical names, docs/streams.md "Channel names"), each with its handler.
   * @param {Map<string, Handler>} channels
   */
  want(channels) {
    for (const name of this.#refused) if (!channels.has(name)) this.#refused.delete(name);
    for (const name of this.#singly) if (!channels.has(name)) this.#singly.delete(name);
    this.#wanted = new Map(channels);
    this.#sync();
  }

  /**
   * Asks again for a channel held (a depth channel: the server answers with a fresh snapshot).
   * @param {string} channel
   */
  resubscribe(channel) {
    const s = this.#sockets.find((x) => x.channels.has(channel));
    if (s !== undefined && s.open) this.#subscribe(s, [channel]);
  }

  /** Closes every socket; the feed is done. */
  close() {
    this.#closed = true;
    if (this.#retryTimer !== null) clearTimeout(this.#retryTimer);
    for (const s of this.#sockets) s.ws.close();
    this.#sockets = [];
  }

  /** Places wanted channels that no socket holds and drops held channels no longer wanted. */
  #sync() {
    if (this.#closed) return;
    const held = new Set();
    for (const s of this.#sockets) {
      const drop = [...s.channels].filter((c) => !this.#wanted.has(c));
      for (const c of drop) s.channels.delete(c);
      if (drop.length > 0 && s.open) this.#send(s, 'UNSUBSCRIBE', drop);
      for (const c of s.channels) held.add(c);
    }
    const missing = [...this.#wanted.keys()].filter((c) => !held.has(c) && !this.#refused.has(c));
    for (const s of this.#sockets) {
      if (missing.length === 0) break;
      const room = this.#capacity - s.channels.size;
      if (room <= 0) continue;
      const batch = missing.splice(0, room);
      for (const c of batch) s.channels.add(c);
      if (s.open) this.#subscribe(s, batch);
    }
    while (missing.length > 0) this.#openSocket(missing.splice(0, this.#capacity));
    this.#report();
  }

  /** @param {string[]} channels subscribed once it opens */
  #openSocket(channels) {
    /** @type {Socket} */
    const s = { ws: new WebSocket(this.#url), open: false, channels: new Set(channels), pending: new Map() };
    this.#sockets.push(s);
    s.ws.addEventListener('open', () => {
      s.open = true;
      this.#retryMs = 500;
      if (s.channels.size > 0) this.#subscribe(s, [...s.channels]);
      this.#report();
    });
    s.ws.addEventListener('message', (event) => this.#onMessage(s, String(event.data)));
    s.ws.addEventListener('close', () => {
      // Its channels are placed again, on this or another socket, after a pause that grows while connecting fails.
      this.#sockets = this.#sockets.filter((x) => x !== s);
      if (this.#closed) return;
      this.#report();
      if (this.#retryTimer === null) {
        this.#retryTimer = setTimeout(() => {
          this.#retryTimer = null;
          this.#sync();
        }, this.#retryMs);
        this.#retryMs = Math.min(this.#retryMs * 2, 30_000);
      }
    });
  }

  /**
   * @param {Socket} s
   * @param {string} text
   */
  #onMessage(s, text) {
    /** @type {any} */
    let frame;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof frame.channel === 'string') {
      this.#wanted.get(frame.channel)?.(frame.data);
      return;
    }
    const asked = s.pending.get(frame.id);
    if (asked === undefined) return;
    s.pending.delete(frame.id);
    if (frame.error === undefined) {
      this.#report();
      this.#onSubscribed(asked);
      return;
    }
    // SUBSCRIBE is all or nothing: none of the request's channels is held.
    for (const c of asked) s.channels.delete(c);
    const message = String(frame.error.msg ?? '');
    const max = /max (\d+)/.exec(message);
    if (frame.error.code === 4029 && max !== null) {
      this.#capacity = Math.max(1, Number(max[1]));
      this.#sync();
    } else if (frame.error.code === 4004) {
      for (const c of asked) (asked.length === 1 ? this.#refused : this.#singly).add(c);
      this.#sync();
    } else {
      setTimeout(() => this.#sync(), 5_000); // message rate limit: ask again later
    }
  }

  /**
   * @param {Socket} s
   * @param {string[]} channels
   */
  #subscribe(s, channels) {
    const together = channels.filter((c) => !this.#singly.has(c));
    if (together.length > 0) s.pending.set(this.#send(s, 'SUBSCRIBE', together), together);
    for (const c of channels) if (this.#singly.has(c)) s.pending.set(this.#send(s, 'SUBSCRIBE', [c]), [c]);
  }

  /**
   * @param {Socket} s
   * @param {string} method
   * @param {string[]} channels
   * @returns {number} the request id
   */
  #send(s, method, channels) {
    const id = this.#nextId++;
    s.ws.send(JSON.stringify({ method, params: channels, id }));
    return id;
  }

  #report() {
    const placed = this.#sockets.reduce((n, s) => n + s.channels.size, 0);
    const settled = this.#sockets.every((s) => s.open && s.pending.size === 0);
    /** @type {FeedStatus} */
    let status = 'live';
    if (this.#retryTimer !== null || placed < this.#wanted.size - this.#refused.size) status = 'reconnecting';
    else if (!settled) status = 'connecting';
    this.#onStatus(status);
  }
}
