/**
 * Something this request needs does not answer now: the JetStream journal or the shared
 * stores (a NATS node lost, an election), or, for a write, a leader (this node is a standby,
 * or an edge with no leader answering). The gateway answers HTTP 503 `unavailable`, never a
 * 500: the client tries again.
 */
export class UnavailableError extends Error {}
