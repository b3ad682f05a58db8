/**
 * The domains a SIWE message may name (docs/auth.md "Sign-In with Ethereum"). Never the
 * request's Host header: a phishing page can have a wallet sign a message for any domain
 * and relay it with a matching Host. Instead:
 *
 * - testnet and mainnet: exactly the SIWE_DOMAIN entries (config refuses to start without);
 * - local: the venue's own listen address, `127.0.0.1:<port>` and `localhost:<port>` for
 *   the port actually bound (PORT=0 picks one), `<HOST>:<port>` when HOST is another
 *   specific address, and every SIWE_DOMAIN entry.
 *
 * The port is known only once the server listens: app.ts calls `bindPort`.
 */
import type { AppConfig } from '../config.ts';

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '']);

export class SiweDomains {
  private list: readonly string[];

  constructor(private readonly config: Pick<AppConfig, 'network' | 'host' | 'siweDomains'>) {
    this.list = config.siweDomains;
  }

  /** Called once the server listens, with the port it bound. */
  bindPort(port: number): void {
    if (this.config.network !== 'local') return;
    const own = [`127.0.0.1:${port}`, `localhost:${port}`];
    const host = this.config.host.toLowerCase();
    if (!WILDCARD_HOSTS.has(host)) own.push(host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`);
    this.list = [...new Set([...own, ...this.config.siweDomains])];
  }

  /** Lowercased host[:port] entries, in the order they are reported in `Domain mismatch`. */
  accepted(): readonly string[] {
    return this.list;
  }
}
