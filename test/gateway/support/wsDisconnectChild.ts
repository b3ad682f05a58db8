/**
 * A client process for the cancel-on-disconnect test: it opens /ws/private, authenticates
 * with the token it is given, asks for cancel on disconnect (scope from argv) and prints
 * "ready"; the test then kills it with SIGKILL, so the socket goes as a dropped network
 * connection does, with no close frame.
 *
 *   node --import tsx wsDisconnectChild.ts <ws url> <token> <scope>
 */
import WebSocket from 'ws';

const [url, token, scope] = process.argv.slice(2) as [string, string, string];
const ws = new WebSocket(url, { perMessageDeflate: false });
ws.on('open', () => ws.send(JSON.stringify({ type: 'AUTH', token })));
ws.on('message', (data) => {
  const f = JSON.parse(data.toString()) as Record<string, unknown>;
  if (f['type'] === 'AUTH_SUCCESS') ws.send(JSON.stringify({ method: 'SET_CANCEL_ON_DISCONNECT', params: { enabled: true, scope }, id: 'set' }));
  else if (f['id'] === 'set' && f['result'] !== undefined) process.stdout.write('ready\n');
});
ws.on('error', (e) => {
  process.stderr.write(`child socket error: ${e.message}\n`);
  process.exit(2);
});
