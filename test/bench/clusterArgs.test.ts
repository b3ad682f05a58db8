/**
 * bench/cluster.ts's flags and its takeover summary (bench/lib/clusterArgs.ts). Nothing here
 * starts a cluster or measures time.
 */
import t from 'tap';
import { CLUSTER_DEFAULTS, minMedianMax, parseClusterArgs } from '../../bench/lib/clusterArgs.ts';

t.test('no flags: the defaults (every part, 10 kills, R3 takeover, the default lease TTL)', async (t) => {
  t.same(parseClusterArgs([]), CLUSTER_DEFAULTS);
  t.same(CLUSTER_DEFAULTS.only, ['orders', 'takeover', 'fanout']);
  t.equal(CLUSTER_DEFAULTS.kills, 10);
  t.equal(CLUSTER_DEFAULTS.leaseTtlMs, 1500);
  t.equal(CLUSTER_DEFAULTS.rate, null, 'the latency rate defaults to half the lowest throughput');
});

t.test('each flag sets its field', async (t) => {
  const a = parseClusterArgs(['--duration=1000', '--rounds=3', '--rate=250', '--kills=2', '--takeover-nats=1', '--lease-ttl-ms=3000', '--subscribers=500', '--only=fanout,orders']);
  t.same(a, { durationMs: 1000, rounds: 3, rate: 250, kills: 2, takeoverNats: 1, leaseTtlMs: 3000, subscribers: 500, only: ['orders', 'fanout'] });
  t.same(CLUSTER_DEFAULTS.only, ['orders', 'takeover', 'fanout'], 'the defaults are not changed by a parse');
});

t.test('unknown flags and values out of range are refused, naming the flag', async (t) => {
  t.throws(() => parseClusterArgs(['--kill=2']), /unknown argument "--kill=2"/);
  t.throws(() => parseClusterArgs(['--kills']), /unknown argument "--kills"/);
  t.throws(() => parseClusterArgs(['--kills=0']), /--kills must be a whole number from 1/);
  t.throws(() => parseClusterArgs(['--duration=1.5']), /--duration must be a whole number/);
  t.throws(() => parseClusterArgs(['--rate=']), /--rate must be a whole number/);
  t.throws(() => parseClusterArgs(['--takeover-nats=2']), /--takeover-nats must be 1 or 3/);
  t.throws(() => parseClusterArgs(['--lease-ttl-ms=100']), /--lease-ttl-ms must be a whole number from 300/);
  t.throws(() => parseClusterArgs(['--only=orders,latency']), /--only takes orders, takeover, fanout.*"latency"/);
});

t.test('min, median, max', async (t) => {
  t.same(minMedianMax([]), { min: null, p50: null, max: null });
  t.same(minMedianMax([1500.4]), { min: 1500, p50: 1500, max: 1500 });
  t.same(minMedianMax([1900, 1400.6, 1700, 1650]), { min: 1401, p50: 1650, max: 1900 }, 'nearest rank: the lower middle of an even count');
  t.same(minMedianMax([3, 1, 2]), { min: 1, p50: 2, max: 3 });
});
