/**
 * What every stream socket shares (socketSetup.ts): idle sockets are pinged and a peer that
 * never answers is dropped while a live one stays; an oversized frame ends the connection.
 * Uses the smallest idle timeout (8 s), so this file takes about that long.
 */
import t from 'tap';
import { connect as tcpConnect, type Socket } from 'node:net';
import { startTestApp } from '../support/testApp.ts';
import { wsEnv, connect } from './support.ts';

wsEnv({ WS_IDLE_TIMEOUT_SECONDS: '8', WS_MAX_PAYLOAD_BYTES: '4096' });
const app = await startTestApp({ memory: true });
t.teardown(() => app.close());

/** A raw TCP WebSocket client that completes the handshake and then never answers anything. */
function deadPeer(): Promise<{ socket: Socket; closed: Promise<void>; bytes: () => number }> {
  const port = Number(new URL(app.url).port);
  return new Promise((resolve, reject) => {
    let received = 0;
    const socket = tcpConnect(port, '127.0.0.1', () => {
      socket.write('GET /ws/public HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n');
    });
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.on('error', () => {});
    socket.on('data', (d) => {
      if (received === 0 && !d.toString('latin1').startsWith('HTTP/1.1 101')) reject(new Error('handshake refused'));
      if (received === 0) resolve({ socket, closed, bytes: () => received });
      received += d.length;
    });
  });
}

t.test('idle sockets get pings; a peer that never answers is dropped, a live one stays', async (t) => {
  const live = await connect(app, '/ws/public');
  let pings = 0;
  live.ws.on('ping', () => pings++);
  const dead = await deadPeer();
  const handshakeBytes = dead.bytes();
  await dead.closed;
  t.ok(dead.bytes() > handshakeBytes, 'the silent peer was pinged before it was dropped');
  t.pass('the silent peer was dropped');
  t.ok(pings >= 1, `the live client was pinged (${pings}) and answered automatically`);
  live.send({ method: 'PING', id: 1 });
  t.same(await live.next((f) => f['id'] === 1), { result: 'PONG', id: 1 }, 'the live client is still served');
  live.close();
});

t.test('a frame larger than the payload limit ends the connection', async (t) => {
  const c = await connect(app, '/ws/public');
  c.send({ method: 'SUBSCRIBE', params: ['x'.repeat(5000)], id: 1 });
  const closed = await c.closed;
  t.not(closed.code, 1000, `closed by the server (${closed.code})`);
  t.equal(c.frames.length, 0, 'no reply');
});
