/**
 * What every stream socket shares (socketSetup.ts): idle sockets are pinged and a peer that
 * never answers is dropped while a live one stays; an oversized frame ends the connection.
 * Uses the smallest idle timeout (8 s); uWS's idle timer runs on the real clock, so this file
 * takes about that long (events are awaited, nothing is slept for).
 */
import t from 'tap';
import { connect as tcpConnect, type Socket } from 'node:net';
import { startTestApp } from '../support/testApp.ts';
import { within } from '../../support/within.ts';
import { wsEnv, connect } from './support.ts';

wsEnv({ WS_IDLE_TIMEOUT_SECONDS: '8', WS_MAX_PAYLOAD_BYTES: '4096' });
const app = await startTestApp({ memory: true });
t.teardown(() => app.close());

/**
 * A raw TCP WebSocket client that completes the handshake and then never answers anything;
 * `pinged()` says whether a ping frame (opcode 0x9) came after the handshake.
 */
function deadPeer(): Promise<{ socket: Socket; closed: Promise<void>; pinged: () => boolean }> {
  const port = Number(new URL(app.url).port);
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const socket = tcpConnect(port, '127.0.0.1', () => {
      socket.write('GET /ws/public HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n');
    });
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.on('error', () => {});
    const pinged = () => {
      const end = received.indexOf('\r\n\r\n');
      return end >= 0 && received.length > end + 4 && (received[end + 4]! & 0x0f) === 0x9;
    };
    socket.on('data', (d: Buffer) => {
      if (received.length === 0 && !d.toString('latin1').startsWith('HTTP/1.1 101')) reject(new Error('handshake refused'));
      if (received.length === 0) resolve({ socket, closed, pinged });
      received = Buffer.concat([received, d]);
    });
  });
}

// uWebSockets.js keeps the idle timer itself (native code, on the real clock): the test
// awaits the events (the drop, the pings) rather than sleeping, each with a bound that only
// turns a hang into a failure.
t.test('idle sockets get pings; a peer that never answers is dropped, a live one stays', async (t) => {
  const live = await connect(app, '/ws/public');
  const livePinged = new Promise<void>((resolve) => live.ws.once('ping', () => resolve()));
  const dead = await deadPeer();
  await within(dead.closed, 60_000, 'the drop of the silent peer (idle timeout 8 s)');
  t.ok(dead.pinged(), 'the silent peer was pinged before it was dropped');
  await within(livePinged, 60_000, 'a ping to the live client');
  t.pass('the live client was pinged and answered automatically');
  live.send({ method: 'PING', id: 1 });
  t.same(await live.next((f) => f['id'] === 1), { result: 'PONG', id: 1 }, 'the live client is still served');
  t.equal(live.isClosed(), false, 'the live client was not dropped');
  live.close();
});

t.test('a frame larger than the payload limit ends the connection', async (t) => {
  const c = await connect(app, '/ws/public');
  c.send({ method: 'SUBSCRIBE', params: ['x'.repeat(5000)], id: 1 });
  const closed = await c.closed;
  t.not(closed.code, 1000, `closed by the server (${closed.code})`);
  t.equal(c.frames.length, 0, 'no reply');
});
