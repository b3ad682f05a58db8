/**
 * Replays the golden scenarios of fixtures/scenarios.txt (format described at its top) against
 * both books: every return value, every event in order, and every drawn book must match.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import type { OrderBook } from '../../../engine/book/types.ts';
import { implementations } from './support/implementations.ts';
import { Recorder, refuseEvents } from './support/recorder.ts';

type Step =
  | { kind: 'given' | 'book'; rows: string[]; line: number }
  | { kind: 'command'; words: string[]; expect: number; events: string[]; line: number };
type Scenario = { title: string; steps: Step[] };

const text = readFileSync(new URL('./fixtures/scenarios.txt', import.meta.url), 'utf8');

/** One space between words, none around `|`: the canonical form rows are compared in. */
function norm(row: string): string {
  return row.trim().split(/\s+/).join(' ').replace(/ ?\| ?/, ' | ');
}

function parse(source: string): Scenario[] {
  const scenarios: Scenario[] = [];
  const lines = source.split('\n');
  let current: Scenario | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === '' || raw.startsWith('#') && !raw.startsWith('## ')) continue;
    if (raw.startsWith('## ')) {
      current = { title: raw.slice(3).trim(), steps: [] };
      scenarios.push(current);
      continue;
    }
    if (!current) throw new Error(`line ${i + 1}: command before the first "## title"`);
    if (/^\s/.test(raw)) throw new Error(`line ${i + 1}: indented line with nothing to belong to`);
    // Collect the indented lines that belong to this one.
    const body: string[] = [];
    while (i + 1 < lines.length && /^\s+\S/.test(lines[i + 1]!)) body.push(norm(lines[++i]!));
    const word = raw.trim();
    if (word === 'given' || word === 'book') {
      current.steps.push({ kind: word, rows: body, line: i + 1 });
      continue;
    }
    const m = /^(.*?)\s*->\s*(\d+)$/.exec(word);
    if (!m) throw new Error(`line ${i + 1}: expected "<command> -> <result>", got "${word}"`);
    current.steps.push({ kind: 'command', words: m[1]!.split(/\s+/), expect: Number(m[2]), events: body, line: i + 1 });
  }
  return scenarios;
}

/** The book drawn as the fixture draws it. */
function draw(book: OrderBook): string[] {
  const levels = new Map<string, string[]>();
  for (const o of book.orders()) {
    const key = `${o.isBuy ? 'bid' : 'ask'} ${o.tick}`;
    const list = levels.get(key) ?? [];
    list.push(`${o.ref}@${o.owner}:${o.qty}`);
    levels.set(key, list);
  }
  const row = (isBuy: boolean, tick: number): string => norm(`${isBuy ? 'bid' : 'ask'} ${tick} | ${levels.get(`${isBuy ? 'bid' : 'ask'} ${tick}`)!.join(' ')}`);
  const asks = book.depth(false, 1e9).reverse().map((l) => row(false, l.tick));
  const bids = book.depth(true, 1e9).map((l) => row(true, l.tick));
  return [...asks, '---', ...bids];
}

/** depth() must agree with the orders it aggregates. */
function depthMatchesOrders(book: OrderBook): boolean {
  for (const isBuy of [true, false]) {
    for (const l of book.depth(isBuy, 1e9)) {
      const at = book.orders().filter((o) => o.isBuy === isBuy && o.tick === l.tick);
      if (at.length !== l.count || at.reduce((a, o) => a + o.qty, 0) !== l.qty || book.levelQty(isBuy, l.tick) !== l.qty) return false;
    }
  }
  return true;
}

function give(book: OrderBook, rows: string[], line: number): void {
  for (const row of rows) {
    if (row === '---') continue;
    const m = /^(ask|bid) (\d+) \| (.*)$/.exec(row);
    if (!m) throw new Error(`line ${line}: bad book row "${row}"`);
    for (const cell of m[3]!.split(' ')) {
      const [, ref, owner, qty] = /^(\d+)@(\d+):(\d+)$/.exec(cell) ?? [];
      if (!ref) throw new Error(`line ${line}: bad order "${cell}"`);
      book.place(Number(ref), Number(owner), m[1] === 'bid', Number(m[2]), Number(qty), refuseEvents);
    }
  }
}

function run(book: OrderBook, words: string[], sink: Recorder): number {
  const n = words.slice(1).filter((w) => /^\d+$/.test(w)).map(Number);
  switch (words[0]) {
    case 'place':
      return book.place(n[0]!, n[1]!, words[3] === 'buy', n[2]!, n[3]!, sink, words[6] !== 'ioc');
    case 'cancel':
      return book.cancel(n[0]!);
    case 'reduce':
      return book.reduce(n[0]!, n[1]!);
    default:
      throw new Error(`unknown command ${words[0]}`);
  }
}

const scenarios = parse(text);
t.ok(scenarios.length >= 12, `the fixture holds the scenarios (${scenarios.length})`);

t.test('the parser rejects what it does not understand', async (t) => {
  t.throws(() => parse('## x\nplace 1 1 buy 1 1\n'), /expected "<command> -> <result>"/);
  t.throws(() => parse('place 1 1 buy 1 1 -> 0\n'), /before the first/);
  t.throws(() => give(implementations[0]![1](), ['ask 1 | 1-1:1'], 1), /bad order/);
});

for (const [name, create] of implementations) {
  t.test(name, async (t) => {
    for (const s of scenarios) {
      t.test(s.title, async (t) => {
        const book = create();
        const sink = new Recorder();
        for (const step of s.steps) {
          if (step.kind === 'command') {
            t.equal(run(book, step.words, sink), step.expect, `line ${step.line}: ${step.words.join(' ')} returns ${step.expect}`);
            t.same(sink.take(), step.events, `line ${step.line}: events`);
          } else if (step.kind === 'given') {
            give(book, step.rows, step.line);
          } else {
            t.same(draw(book), step.rows, `line ${step.line}: book`);
            t.ok(depthMatchesOrders(book), `line ${step.line}: depth agrees with the orders`);
          }
          t.equal(book.checkInvariants(), null, `line ${step.line}: invariants`);
        }
      });
    }
  });
}
