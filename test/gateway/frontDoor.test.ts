/**
 * The engine has one front door (architecture.md rule 5): every gateway file imports the
 * engine only through `engine/index.ts`, and no gateway file walks engine state (the views
 * are folds of events in gateway/readModels; checks go through `services.venue`, the
 * pre-check and queries, typed so that the state cannot be reached).
 */
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const engine = join(root, 'engine');
const frontDoor = join(engine, 'index.ts');

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...tsFiles(p));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** Module specifiers of a source: static imports and re-exports, dynamic imports. */
export function specifiers(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g)) out.push(m[1]!);
  for (const m of source.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)) out.push(m[1]!);
  for (const m of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1]!);
  return out;
}

/** What a gateway file at `file` reaches inside engine/ other than its front door. */
export function backDoors(file: string, source: string): string[] {
  const bad: string[] = [];
  for (const spec of specifiers(source)) {
    if (!spec.startsWith('.')) continue;
    const target = resolve(dirname(file), spec);
    if ((target === engine || target.startsWith(engine + '/')) && target !== frontDoor) bad.push(spec);
  }
  return bad;
}

const gatewayFiles = tsFiles(join(root, 'gateway'));

t.test('the checker sees a back door and lets the front door through', async (t) => {
  const f = join(root, 'gateway', 'routes', 'x.ts');
  t.same(backDoors(f, "import type { VenueState } from '../../engine/state.ts';\nimport { Venue } from '../../engine/index.ts';"), ['../../engine/state.ts']);
  t.same(backDoors(f, "export { x } from '../../engine/flows/orders.ts';"), ['../../engine/flows/orders.ts']);
  t.same(backDoors(f, "const m = await import('../../engine/venue.ts');"), ['../../engine/venue.ts']);
  t.same(backDoors(f, "import {\n  Venue,\n  type Hex,\n} from '../../engine/index.ts';"), []);
});

t.test('every gateway file imports the engine only through engine/index.ts', async (t) => {
  t.ok(gatewayFiles.length > 50, `${gatewayFiles.length} gateway files read`);
  const found: string[] = [];
  for (const file of gatewayFiles) for (const spec of backDoors(file, readFileSync(file, 'utf8'))) found.push(`${relative(root, file)}: ${spec}`);
  t.same(found, [], 'no gateway file imports another engine module');
});

t.test('no gateway file walks engine state', async (t) => {
  const found: string[] = [];
  for (const file of gatewayFiles) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (/\bvenue\.state\b|\.engine\.state\b|\bVenueState\b/.test(line)) found.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
      });
  }
  t.same(found, [], 'grep -rn "venue.state" gateway finds nothing');
});
