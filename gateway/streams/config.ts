/**
 * Stream limits (interface.md "Public WebSocket limits", api.md "WebSocket"), all
 * configurable from the environment. A bad value stops the start with a message naming
 * the variable, like gateway/config.ts does for the rest of the configuration.
 */

export type StreamLimits = {
  /** New connections per IP per minute, over all three streams; the next upgrade is answered 429 with Retry-After. */
  readonly connectionsPerMinute: number;
  /** Inbound messages per connection per minute on /ws/public and /ws/private (error 4029 beyond). */
  readonly messagesPerMinute: number;
  /** Inbound messages per connection per minute on /ws/rfq/mm (quotes are the traffic there). */
  readonly rfqMessagesPerMinute: number;
  /** Concurrent subscriptions per connection (error 4029 beyond). */
  readonly maxSubscriptions: number;
  /** A socket whose send buffer passes this many bytes is closed with code 4008. */
  readonly maxBufferedBytes: number;
  /** Seconds without inbound traffic before a socket is dropped; pings are sent before that. */
  readonly idleTimeoutSeconds: number;
  /** Milliseconds a private or RFQ socket may stay open without a successful AUTH. */
  readonly authTimeoutMs: number;
  /** Largest inbound frame; uWS closes the connection on a larger one. */
  readonly maxPayloadBytes: number;
  /** Largest inbound frame on /ws/private (at least maxPayloadBytes): order batches travel there; default the REST body limit. */
  readonly privateMaxPayloadBytes: number;
  /** HTTP requests refused by a rate limit (429) within one venue@health second that raise a rate-limit storm alert on /ws/monitor. */
  readonly rateLimitStormPerSecond: number;
};

export const defaultStreamLimits: StreamLimits = {
  connectionsPerMinute: 10,
  messagesPerMinute: 60,
  rfqMessagesPerMinute: 600,
  maxSubscriptions: 25,
  maxBufferedBytes: 512 * 1024,
  idleTimeoutSeconds: 60,
  authTimeoutMs: 10_000,
  maxPayloadBytes: 16 * 1024,
  privateMaxPayloadBytes: 64 * 1024,
  rateLimitStormPerSecond: 100,
};

/** Environment variable of each limit. */
export const streamLimitEnv: Readonly<Record<keyof StreamLimits, string>> = {
  connectionsPerMinute: 'WS_CONNECTIONS_PER_MINUTE',
  messagesPerMinute: 'WS_MESSAGES_PER_MINUTE',
  rfqMessagesPerMinute: 'WS_RFQ_MESSAGES_PER_MINUTE',
  maxSubscriptions: 'WS_MAX_SUBSCRIPTIONS',
  maxBufferedBytes: 'WS_MAX_BUFFERED_BYTES',
  idleTimeoutSeconds: 'WS_IDLE_TIMEOUT_SECONDS',
  authTimeoutMs: 'WS_AUTH_TIMEOUT_MS',
  maxPayloadBytes: 'WS_MAX_PAYLOAD_BYTES',
  privateMaxPayloadBytes: 'WS_PRIVATE_MAX_PAYLOAD_BYTES',
  rateLimitStormPerSecond: 'MONITOR_RATE_LIMIT_STORM',
};

const bounds: Readonly<Record<keyof StreamLimits, readonly [number, number]>> = {
  connectionsPerMinute: [1, 1_000_000],
  messagesPerMinute: [1, 1_000_000],
  rfqMessagesPerMinute: [1, 1_000_000],
  maxSubscriptions: [1, 10_000],
  maxBufferedBytes: [4096, 1024 * 1024 * 1024],
  // uWS counts idle time in 4-second steps and needs room to ping before it drops.
  idleTimeoutSeconds: [8, 960],
  authTimeoutMs: [100, 600_000],
  maxPayloadBytes: [1024, 16 * 1024 * 1024],
  privateMaxPayloadBytes: [1024, 16 * 1024 * 1024],
  rateLimitStormPerSecond: [1, 1_000_000_000],
};

/** Limits from `env` over the defaults; throws naming every bad variable. */
export function streamLimitsFromEnv(env: Readonly<Record<string, string | undefined>>, base: StreamLimits = defaultStreamLimits): StreamLimits {
  const out: Record<string, number> = { ...base };
  const errors: string[] = [];
  for (const key of Object.keys(streamLimitEnv) as (keyof StreamLimits)[]) {
    const name = streamLimitEnv[key];
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const [min, max] = bounds[key];
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      errors.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      continue;
    }
    out[key] = Number(raw);
  }
  if (errors.length > 0) throw new Error(`bad stream configuration: ${errors.join('; ')}`);
  return out as StreamLimits;
}
