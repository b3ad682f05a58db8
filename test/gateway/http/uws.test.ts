/**
 * gateway/uws.ts (kept here, beside the HTTP tests, because this engineer owns
 * test/gateway/http/): the native binding loads on this machine, and a missing binding
 * is refused unless UWS_ALLOW_FALLBACK=1, which returns the fallback loudly.
 */
import t from 'tap';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { allowFallbackEnv, loadUws, nativeBindingPath } from '../../../gateway/uws.ts';

const require = createRequire(import.meta.url);

t.test('the native binding loads here', async (t) => {
  const loaded = loadUws({ env: {} });
  t.equal(loaded.native, true);
  t.equal(typeof loaded.uws.App, 'function');
  t.equal(loaded.bindingPath, nativeBindingPath());
  t.match(loaded.bindingPath, new RegExp(`binaries/uws_${process.platform}_${process.arch}_${process.versions.modules}\\.node$`));
  t.ok(existsSync(loaded.bindingPath));
  // The package's own entry point, when it does not fall back, hands out the very same module object.
  t.equal(require('uWebSockets.js'), loaded.uws, 'same object as the package entry point');
  const app = loaded.uws.App();
  const port = await new Promise<number>((resolve, reject) =>
    app.listen('127.0.0.1', 0, (socket) => {
      if (socket === false) return reject(new Error('listen failed'));
      const p = loaded.uws.us_socket_local_port(socket);
      loaded.uws.us_listen_socket_close(socket);
      resolve(p);
    }),
  );
  t.ok(port > 0, 'listens and reports its port');
});

t.test('a missing binding is refused with a clear error', async (t) => {
  const err = t.throws(() => loadUws({ env: {}, abi: '999' })) as Error;
  t.match(err.message, /native binding could not be loaded from .*uws_[a-z0-9]+_[a-z0-9]+_999\.node/);
  t.match(err.message, /refuses to start on the slow pure-JS fallback/);
  t.match(err.message, new RegExp(`${allowFallbackEnv}=1`));
  t.ok(err.cause, 'keeps the cause');
  t.throws(() => loadUws({ env: { [allowFallbackEnv]: 'true' }, platform: 'plan9' }), 'only the exact value 1 allows the fallback');
});

t.test('UWS_ALLOW_FALLBACK=1 returns the fallback with native: false, loudly', async (t) => {
  const warnings: string[] = [];
  const loaded = loadUws({ env: { [allowFallbackEnv]: '1' }, abi: '999', warn: (m) => warnings.push(m) });
  t.equal(loaded.native, false);
  t.equal(typeof loaded.uws.App, 'function');
  t.not(loaded.uws, loadUws({ env: {} }).uws, 'the fallback is not the native module');
  t.equal(warnings.length, 1);
  t.match(warnings[0], /NOT loaded.*FALLBACK/);
  t.match(warnings[0], /development only/);
});
