/**
 * The client's route table (client/routes.ts) has every current-form route the venue
 * serves, and no other: the keys of its `RouteKey` type, read with the TypeScript compiler
 * from the types themselves, against the routes the running venue registers
 * (`apiRoutes`). A route module the server mounts but `Modules` leaves out is reported by
 * name; so is a route the client still names after the server dropped it. And every body
 * and reply in the table is typed (a body validated outside the framework, `docsOnly`,
 * needs its `TypedRoute` cast or the client sees `unknown`).
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

type Table = { keys: string[]; untyped: string[] };
let base: ts.Program | undefined;
// Each table is a TypeScript program over the gateway's route modules: seconds each, more on a busy machine.
t.setTimeout(300_000);

/**
 * The client's table as TypeScript sees client/routes.ts (or `source`, a variant of that
 * file): the string literals of `RouteKey`, and the routes whose body or reply type is
 * `unknown` or `any` ("POST /api/x body"): a schema the client cannot see.
 */
function clientTable(source?: string): Table {
  const config = ts.getParsedCommandLineOfConfigFile(`${root}tsconfig.json`, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(String(d.messageText)); } });
  if (config === undefined) throw new Error('tsconfig.json could not be read');
  const host = ts.createCompilerHost(config.options);
  if (source !== undefined) {
    const read = host.getSourceFile.bind(host);
    host.getSourceFile = (name, lang, ...rest) => (name === routesFile ? ts.createSourceFile(name, source, lang) : read(name, lang, ...rest));
  }
  // The variants reuse the first program's unchanged files (parsed once).
  const program = ts.createProgram([routesFile], config.options, host, base);
  base ??= program;
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(routesFile)!;
  const alias = (name: string) => {
    const a = file.statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === name);
    if (a === undefined) throw new Error(`client/routes.ts declares no ${name}`);
    return checker.getTypeAtLocation(a.name);
  };
  const keyType = alias('RouteKey');
  const keys = (keyType.isUnion() ? keyType.types : [keyType]).map((x) => {
    if (!x.isStringLiteral()) throw new Error(`RouteKey holds a non-literal type: ${checker.typeToString(x)}`);
    return x.value;
  });
  const untyped: string[] = [];
  for (const route of alias('Routes').getProperties()) {
    const entry = checker.getTypeOfSymbolAtLocation(route, file);
    for (const part of ['body', 'reply']) {
      const type = checker.getTypeOfSymbolAtLocation(entry.getProperty(part)!, file);
      if (type.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any)) untyped.push(`${route.name} ${part}`);
    }
  }
  return { keys, untyped };
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
  const { keys, untyped } = clientTable();
  t.same(compare(keys), { missing: [], extra: [] });
  t.equal(new Set(keys).size, served.length, 'one key per route');
  t.same(untyped, [], 'every body and reply is typed from its schema');
});

t.test('the check names the routes of a module the client leaves out', async (t) => {
  const source = readFileSync(routesFile, 'utf8');
  const without = source.replace(/\n\s*\| typeof strategyRoutes/, '');
  t.not(without, source, 'the strategies module was taken out of Modules');
  const { missing, extra } = compare(clientTable(without).keys);
  t.same(missing, ['GET /api/strategies/templates', 'POST /api/strategies/execute', 'POST /api/strategies/quote'], 'its routes are reported missing');
  t.same(extra, []);
});

t.test('the check finds a body the client sees as unknown', async (t) => {
  // What a docsOnly body without its TypedRoute cast gives: the body's type is unknown.
  const source = readFileSync(routesFile, 'utf8');
  const erased = source.replace("body: StaticOf<S['body']>; reply", "body: S['path'] extends '/api/strategies/quote' ? unknown : StaticOf<S['body']>; reply");
  t.not(erased, source, 'the table was changed');
  t.same(clientTable(erased).untyped, ['POST /api/strategies/quote body']);
});
