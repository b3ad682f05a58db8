/**
 * The wire's value lists come from the engine's (gateway/wire/literals.ts, engine/domain/values.ts):
 * every field of the published OpenAPI and AsyncAPI documents that carries one of them lists
 * exactly the engine's values, in the engine's order. The cancel reasons once drifted: the
 * engine emitted `liquidation` and the documents did not list it.
 */
import t from 'tap';
import { CANCEL_REASONS, MMP_REASONS, ORDER_STATUSES, SIDES, TIME_IN_FORCE, TRADE_SOURCES } from '../../../engine/index.ts';
import { literalUnion, literals } from '../../../gateway/wire/literals.ts';
import { CancelReasonField } from '../../../gateway/orders/instructionFields.ts';
import { startTestApp } from '../support/testApp.ts';

const app = await startTestApp({ memory: true, startAt: Date.UTC(2026, 0, 5, 12, 0, 0) });
const openapi = (await (await fetch(`${app.url}/openapi/json`)).json()) as unknown;
const asyncapi = (await (await fetch(`${app.url}/asyncapi/json`)).json()) as unknown;
await app.close();

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** The string constants a schema allows (`const`, `enum`, or the members of an `anyOf`/`oneOf`), in order; null for none. */
function constants(schema: Json): string[] | null {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return null;
  if (typeof schema['const'] === 'string') return [schema['const']];
  if (Array.isArray(schema['enum'])) return schema['enum'].filter((v): v is string => typeof v === 'string');
  const members = schema['anyOf'] ?? schema['oneOf'];
  if (!Array.isArray(members)) return null;
  const out: string[] = [];
  for (const m of members) {
    const c = constants(m);
    if (c !== null) out.push(...c);
  }
  return out.length === 0 ? null : out;
}

/** Every property named one of `names` anywhere in `doc`, with its path. */
function fields(doc: Json, names: readonly string[], path = ''): { path: string; schema: Json }[] {
  if (doc === null || typeof doc !== 'object') return [];
  const out: { path: string; schema: Json }[] = [];
  for (const [k, v] of Array.isArray(doc) ? doc.entries() : Object.entries(doc)) {
    const here = `${path}/${k}`;
    if (typeof k === 'string' && names.includes(k) && !Array.isArray(doc) && path.endsWith('/properties')) out.push({ path: here, schema: v });
    out.push(...fields(v, names, here));
  }
  return out;
}

const lists: { name: string; values: readonly string[]; fields: string[]; marker: string }[] = [
  { name: 'cancel reasons', values: CANCEL_REASONS, fields: ['cancelReason'], marker: 'mass_cancel' },
  { name: 'order statuses', values: ORDER_STATUSES, fields: ['status'], marker: 'partial' },
  { name: 'time in force', values: TIME_IN_FORCE, fields: ['timeInForce'], marker: 'FOK' },
  { name: 'MMP reasons', values: MMP_REASONS, fields: ['reason'], marker: 'vega' },
  { name: 'sides', values: SIDES, fields: ['side', 'takerSide', 'direction'], marker: 'sell' },
  { name: 'trade sources', values: TRADE_SOURCES, fields: ['source'], marker: 'rfq' },
];

for (const list of lists) {
  t.test(`${list.name}: every document field that carries them lists the engine's, in its order`, async (t) => {
    let seen = 0;
    for (const [docName, doc] of [['OpenAPI', openapi], ['AsyncAPI', asyncapi]] as const) {
      for (const f of fields(doc as Json, list.fields)) {
        const c = constants(f.schema);
        // A field of the same name with another list (a cancel's `reason` text, a query's own values) is not this one.
        if (c === null || !c.includes(list.marker)) continue;
        seen++;
        if (JSON.stringify(c) !== JSON.stringify(list.values)) t.fail(`${docName} ${f.path}: ${JSON.stringify(c)}, the engine's ${JSON.stringify(list.values)}`);
      }
    }
    t.ok(seen > 0, `${seen} fields carry them`);
  });
}

t.test("the cancel reason field: the engine's reasons and null, each named in its description", async (t) => {
  t.same(constants(CancelReasonField as unknown as Json), [...CANCEL_REASONS]);
  t.equal((CancelReasonField.anyOf.at(-1) as { type?: string }).type, 'null', 'null last');
  for (const r of CANCEL_REASONS) t.match(CancelReasonField.description ?? '', new RegExp(`\\b${r}\\b`), `the description names ${r}`);
  t.ok(CANCEL_REASONS.includes('liquidation' as never), 'the liquidation pass’s reason is listed');
});

t.test('literalUnion and literals keep the given order and nothing else', async (t) => {
  const u = literalUnion(['b', 'a', 'c'] as const, { description: 'x' });
  t.same(constants(u as unknown as Json), ['b', 'a', 'c']);
  t.equal(u.description, 'x');
  t.same(
    literals(['x'] as const).map((l) => l.const),
    ['x'],
  );
});
