/**
 * Loads uWebSockets.js and refuses the slow fallback.
 *
 * The package we depend on (an alias of @trufflesuite/uws-js-unofficial) silently swaps
 * in a pure-JS server built on `ws` and `node:http` when its native binding does not
 * load (wrong Node ABI, wrong platform, UWS_USE_FALLBACK set). That server answers the
 * same API but at a fraction of the throughput the performance budgets assume, so the
 * gateway requires the binding itself: it loads the exact file the package would try,
 * `binaries/uws_<platform>_<arch>_<abi>.node`, and never goes through the package's
 * entry point. Everyone else in the gateway (HTTP, WebSocket) must get uWS from here.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as UwsModule from 'uWebSockets.js';

export type Uws = typeof UwsModule;

export type LoadedUws =
  | { readonly uws: Uws; readonly native: true; readonly bindingPath: string }
  | { readonly uws: Uws; readonly native: false; readonly bindingPath: string };

export type LoadUwsOptions = {
  /** Environment to read `UWS_ALLOW_FALLBACK` from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Overrides for tests: pretend to be another platform / architecture / Node ABI. */
  readonly platform?: string;
  readonly arch?: string;
  readonly abi?: string;
  /** Where the loud fallback warning goes (default `console.error`). */
  readonly warn?: (message: string) => void;
};

/** The env override that lets a developer run on the fallback server. Never set it in production. */
export const allowFallbackEnv = 'UWS_ALLOW_FALLBACK';

const require = createRequire(import.meta.url);

/** The directory of the installed uWebSockets.js package. */
function packageDir(): string {
  return dirname(require.resolve('uWebSockets.js/package.json'));
}

/** The native binding file the package tries for this platform, architecture and Node ABI. */
export function nativeBindingPath(
  platform: string = process.platform,
  arch: string = process.arch,
  abi: string = process.versions.modules,
): string {
  return join(packageDir(), 'binaries', `uws_${platform}_${arch}_${abi}.node`);
}

/**
 * Returns the native uWebSockets.js binding. Throws a clear error when it cannot be
 * loaded, unless `UWS_ALLOW_FALLBACK=1`, in which case it returns the pure-JS fallback
 * with `native: false` after a loud warning (development only).
 */
export function loadUws(options: LoadUwsOptions = {}): LoadedUws {
  const env = options.env ?? process.env;
  const bindingPath = nativeBindingPath(options.platform, options.arch, options.abi);
  let cause: unknown;
  try {
    const uws = require(bindingPath) as Uws;
    // A file that loads but is not the binding (a broken install) must not pass as native.
    if (typeof uws.App === 'function' && typeof uws.us_socket_local_port === 'function') {
      return { uws, native: true, bindingPath };
    }
    cause = new Error(`${bindingPath} does not export App and us_socket_local_port`);
  } catch (err) {
    cause = err;
  }
  const reason = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
  if (env[allowFallbackEnv] === '1') {
    const warn = options.warn ?? ((m: string) => console.error(m));
    warn(
      [
        '!!! uWebSockets.js native binding NOT loaded: running on the pure-JS FALLBACK server.',
        `!!! ${allowFallbackEnv}=1 is set; this is for development only. Throughput will be far below budget.`,
        `!!! tried ${bindingPath}: ${reason}`,
      ].join('\n'),
    );
    return { uws: require(join(packageDir(), 'dist', 'index.js')) as Uws, native: false, bindingPath };
  }
  throw new Error(
    `uWebSockets.js native binding could not be loaded from ${bindingPath} (${reason}). ` +
      `The gateway refuses to start on the slow pure-JS fallback. Use a Node.js version the package ships ` +
      `binaries for (ABI 93, 108 or 115: Node 16, 18 or 20) on linux/darwin/win32, or set ${allowFallbackEnv}=1 ` +
      `to run on the fallback for development only.`,
    { cause },
  );
}
