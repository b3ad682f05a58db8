/**
 * The benchmarks' HTTP load generator ends by itself (bench/lib/httpLoad.ts): a server that
 * accepts and never answers, or that drops the connection, fails the round with a message
 * saying so, instead of the generator waiting forever. The bound is tiny here; nothing
 * about how long anything took is asserted.
 */
import t from 'tap';
import { createServer, type Server, type Socket } from 'node:net';
import { Conn, closedLoop, openLoop } from '../../bench/lib/httpLoad.ts';
import { StallError, within } from '../../bench/lib/deadline.ts';

/** A local TCP server whose connections get `onConnection`; its port and a close. */
async function server(onConnection: (s: Socket) => void): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const srv: Server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    onConnection(s);
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return {
    port: (srv.address() as { port: number }).port,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => srv.close(() => resolve()));
    },
  };
}

const request = Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
const reply = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';

t.test('a server that accepts and never answers: the closed loop fails with "no reply"', async (t) => {
  const mute = await server(() => {});
  t.teardown(mute.close);
  const conns = [await Conn.open(mute.port, { stallMs: 50 }), await Conn.open(mute.port, { stallMs: 50 })];
  const round = closedLoop(conns, Array.from({ length: 10 }, () => request), { i: 0 }, 60_000, 1);
  await t.rejects(round, /no reply for 50 ms with 1 requests in flight/);
  t.type(conns[0]!.error ?? conns[1]!.error, StallError, 'the connection ended as a stall');
});

t.test('a server that answers some requests and then goes quiet: the open loop fails too', async (t) => {
  let answered = 0;
  const flaky = await server((s) =>
    s.on('data', () => {
      if (answered++ < 3) s.write(reply);
    }),
  );
  t.teardown(flaky.close);
  const conns = [await Conn.open(flaky.port, { stallMs: 50 })];
  const round = openLoop(conns, Array.from({ length: 1000 }, () => request), { i: 0 }, 1000, 60_000);
  await t.rejects(round, /open loop after \d+ of \d+ replies: .*no reply for 50 ms/);
});

t.test('a server that drops the connection: the round fails at once with "closed by the server"', async (t) => {
  const rude = await server((s) => s.on('data', () => s.destroy()));
  t.teardown(rude.close);
  const conns = [await Conn.open(rude.port, { stallMs: 60_000 })];
  await t.rejects(closedLoop(conns, [request, request], { i: 0 }, 60_000, 1), /closed by the server with 1 requests in flight/);
});

t.test('nothing listening: opening a connection fails', async (t) => {
  const gone = await server(() => {});
  const port = gone.port;
  await gone.close();
  await t.rejects(Conn.open(port, { stallMs: 60_000 }), /HTTP load connection to 127\.0\.0\.1:\d+: .*ECONNREFUSED/);
});

t.test('a server that answers: a round completes and counts its replies', async (t) => {
  const ok = await server((s) => s.on('data', (d: Buffer) => s.write(reply.repeat(d.toString().split('\r\n\r\n').length - 1))));
  t.teardown(ok.close);
  const conns = [await Conn.open(ok.port, { stallMs: 60_000 })];
  const reqs = Array.from({ length: 20 }, () => request);
  const round = await closedLoop(conns, reqs, { i: 0 }, 60_000, 1);
  t.equal(round.latenciesUs.length, 20, 'every request answered');
  t.equal(round.errors, 0);
  conns[0]!.close();
});

t.test('within(): a wait that never ends fails naming where', async (t) => {
  await t.rejects(within(new Promise(() => {}), 'the test wait', 10), { name: 'StallError', message: 'stalled: the test wait did not happen within 10 ms' });
  t.equal(await within(Promise.resolve(7), 'a settled wait', 10), 7);
});
