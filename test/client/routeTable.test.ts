/**
 * The client's route table (client/routes.ts) has every current-form route the venue
 * serves, and no other: the keys of its `RouteKey` type, read with the TypeScript compiler
 * from the types themselves, against the routes the running venue registers
 * (`apiRoutes`). A route module the server mounts but `Modules` leaves out is reported by
 * name; so is a route the client still names after the server dropped it.
 */
import t from 'tap';
import ts from 'typescript';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startTestApp } from '../gateway/support/testApp.ts';
import { apiRoutes } from '../../gateway/routes/index.ts';
import { pathForForm } from '../../gateway/http/route.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const routesFile = `${root}client/routes.ts`;

/** The string literals of `RouteKey` in client/routes.ts (or in `source`, a variant of that file). */
function clientRouteKeys(source?: string): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(`${root}tsconfig.json`, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(String(d.messageText)); } });
  if (config === undefined) throw new Error('tsconfig.json could not be read');
  const host = ts.createCompilerHost(config.options);
  if (source !== undefined) {
    const read = host.getSourceFile.bind(host);
    host.getSourceFile = (name, lang, ...rest) => (name === routesFile ? ts.createSourceFile(name, source, lang) : read(name, lang, ...rest));
  }
  const program = ts.createProgram([routesFile], config.options, host);
  const file = program.getSourceFile(routesFile)!;
  const alias = file.statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === 'RouteKey');
  if (alias === undefined) throw new Error('client/routes.ts declares no RouteKey');
  const type = program.getTypeChecker().getTypeAtLocation(alias.name);
  return (type.isUnion() ? type.types : [type]).map((x) => {
    if (!x.isStringLiteral()) throw new Error(`RouteKey holds a non-literal type: ${program.getTypeChecker().typeToString(x)}`);
    return x.value;
  });
}

const app = await startTestApp({ memory: true });
t.teardown(() => app.close());
/** `METHOD /api/path` of every route the venue serves in the current form. */
const served = apiRoutes(app.app.services)
  .routes.filter((r) => r.forms.includes('current'))
  .map((r) => `${r.method} ${pathForForm(r, 'current')}`);

/** What one table lacks of the server's routes, and what it has that the server does not serve. */
function compare(client: readonly string[]): { missing: string[]; extra: string[] } {
  const have = new Set(client);
  const serve = new Set(served);
  return { missing: served.filter((k) => !have.has(k)).sort(), extra: client.filter((k) => !serve.has(k)).sort() };
}

t.test('every route the venue serves is in the client, and nothing else', async (t) => {
  t.ok(served.length > 80, `${served.length} current-form routes served`);
  t.ok(served.every((k) => / \/api\//.test(k)), 'all under /api');
  const keys = clientRouteKeys();
  t.same(compare(keys), { missing: [], extra: [] });
  t.equal(new Set(keys).size, served.length, 'one key per route');
});

t.test('the check names the routes of a module the client leaves out', async (t) => {
  const source = readFileSync(routesFile, 'utf8');
  const without = source.replace(/\n\s*\| typeof strategyRoutes/, '');
  t.not(without, source, 'the strategies module was taken out of Modules');
  const { missing, extra } = compare(clientRouteKeys(without));
  t.same(missing, ['GET /api/strategies/templates', 'POST /api/strategies/execute', 'POST /api/strategies/quote'], 'its routes are reported missing');
  t.same(extra, []);
});
