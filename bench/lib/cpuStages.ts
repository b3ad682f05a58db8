/**
 * Where the server's main thread spends its time, by stage of the order route (docs/performance.md
 * "Where an order's microseconds go"): a V8 CPU profile of one measured phase, taken in the
 * server by the inspector (`cpuProfiler`), each sample's time charged to the innermost frame of
 * this repository or of a package on its stack (a built-in such as JSON.stringify or a
 * TypedArray method is charged to the code that called it), and that frame's file named as a
 * stage. `stageTable` turns the profile into microseconds per order, stage by stage, with the
 * top functions of each.
 */
import { Session } from 'node:inspector';

type CallFrame = { functionName: string; url: string; lineNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] };
export type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

/** The inspector's sampling profiler in this process (the server's main thread), at `intervalUs`. */
export function cpuProfiler(intervalUs = 200): { start(): Promise<void>; stop(): Promise<CpuProfile> } {
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve, reject) => session.post(method, params, (err, r) => (err === null ? resolve(r as T) : reject(err))));
  return {
    start: async () => {
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: intervalUs });
      await post('Profiler.start');
    },
    stop: async () => (await post<{ profile: CpuProfile }>('Profiler.stop')).profile,
  };
}

/** Stages by file, first match wins: [stage, test on the path inside the repository or the package name]. */
const RULES: readonly [string, RegExp][] = [
  ['HTTP: uWS, parse, validation, reply write', /^(gateway\/http\/(server|uws|pipeline|validation|compile|reply|route|errors|csrf|cork)\.ts|gateway\/uws\.ts|node_modules\/(uWebSockets\.js|@trufflesuite))/],
  ['auth', /^(gateway\/http\/auth\.ts|gateway\/auth\/)/],
  ['rate limit', /^gateway\/http\/rateLimit\.ts/],
  ['metrics', /^(gateway\/http\/(metrics|opsMetrics|slotMetrics|controlMetrics|chainMetrics|liquidationMetrics)\.ts|gateway\/monitoring\/|node_modules\/prom-client)/],
  ['logging', /^gateway\/http\/log\.ts/],
  ['nonce stores', /^(persistence\/stores\/|persistence\/kvStores\.ts|gateway\/orders\/(nonceAllocator|usedNonces)\.ts)/],
  ['relay calldata', /^(gateway\/orders\/relay\.ts|gateway\/abi\.ts)/],
  ['order route: fields, checks, reply', /^gateway\/orders\//],
  ['signature hop (micro-batcher, pool)', /^(workers\/|node_modules\/piscina)/],
  ['journal encode and commit', /^(persistence\/|node_modules\/(lmdb|msgpackr|ordered-binary))/],
  ['pipeline (submit, listeners)', /^gateway\/commandPipeline\.ts/],
  ['event conversion (engine/wire.ts)', /^engine\/wire\.ts/],
  ['engine apply', /^engine\//],
  ['stream publish', /^gateway\/streams\//],
  ['chain (relayer handle)', /^chain\//],
];

function stageOf(path: string): string {
  if (path.startsWith('gateway/readModels/')) return `fold: ${path.slice('gateway/readModels/'.length).replace(/\.ts$/, '')}`;
  for (const [stage, test] of RULES) if (test.test(path)) return stage;
  return `other: ${path}`;
}

/** The repository-relative path of a frame's script, the package's path for node_modules, null for node's own and V8's. */
function pathOf(url: string, root: string): string | null {
  if (url === '' || url.startsWith('node:')) return null;
  const file = url.startsWith('file://') ? decodeURIComponent(url.slice(7)) : url;
  const nm = file.lastIndexOf('/node_modules/');
  if (nm >= 0) return file.slice(nm + 1);
  return file.startsWith(root) ? file.slice(root.length) : null;
}

export type StageRow = { stage: string; usPerOrder: number; share: number; top: { fn: string; usPerOrder: number }[] };

/**
 * Microseconds of the main thread per order by stage, from `profile` over `orders` orders;
 * V8's own entries: `(garbage collector)`, `(program)` (native code outside JS), `(idle)`
 * (waiting: not counted in the shares).
 */
export function stageTable(profile: CpuProfile, orders: number, root: string): { rows: StageRow[]; busyUsPerOrder: number; idleUsPerOrder: number } {
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const n of profile.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  // Each node's owner: itself or its nearest ancestor with a path; V8's pseudo-frames stand alone.
  const owner = new Map<number, { stage: string; fn: string }>();
  const ownerOf = (id: number): { stage: string; fn: string } => {
    const hit = owner.get(id);
    if (hit !== undefined) return hit;
    const n = byId.get(id)!;
    const name = n.callFrame.functionName;
    let o: { stage: string; fn: string };
    if (name.startsWith('(')) o = { stage: name, fn: name };
    else {
      const p = pathOf(n.callFrame.url, root);
      if (p !== null) o = { stage: stageOf(p), fn: `${name || '(anonymous)'} ${p}:${n.callFrame.lineNumber + 1}` };
      else {
        const up = parent.get(id);
        o = up === undefined ? { stage: 'other: node and V8', fn: name || '(anonymous)' } : ownerOf(up);
      }
    }
    owner.set(id, o);
    return o;
  };
  const stages = new Map<string, { us: number; fns: Map<string, number> }>();
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const o = ownerOf(profile.samples[i]!);
    let s = stages.get(o.stage);
    if (s === undefined) stages.set(o.stage, (s = { us: 0, fns: new Map() }));
    s.us += dt;
    s.fns.set(o.fn, (s.fns.get(o.fn) ?? 0) + dt);
  }
  const idle = stages.get('(idle)')?.us ?? 0;
  stages.delete('(idle)');
  const busy = [...stages.values()].reduce((a, s) => a + s.us, 0);
  const per = (us: number) => Number((us / orders).toFixed(2));
  const rows = [...stages.entries()]
    .map(([stage, s]) => ({ stage, usPerOrder: per(s.us), share: Number((s.us / busy).toFixed(4)), top: [...s.fns.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([fn, us]) => ({ fn, usPerOrder: per(us) })) }))
    .sort((a, b) => b.usPerOrder - a.usPerOrder);
  return { rows, busyUsPerOrder: per(busy), idleUsPerOrder: per(idle) };
}

/** The table as text (stderr), one stage a line with its top function. */
export function formatStages(t: ReturnType<typeof stageTable>): string {
  const lines = [`# main thread: ${t.busyUsPerOrder} us busy an order (idle ${t.idleUsPerOrder} us)`];
  for (const r of t.rows) lines.push(`#  ${r.usPerOrder.toFixed(2).padStart(7)} us ${(100 * r.share).toFixed(1).padStart(5)}%  ${r.stage.padEnd(42)} ${r.top[0]?.fn ?? ''}`);
  return `${lines.join('\n')}\n`;
}
