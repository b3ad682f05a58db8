/** Stream limits from the environment: defaults, overrides, and a refusal naming every bad variable. */
import t from 'tap';
import { defaultStreamLimits, streamLimitsFromEnv } from '../../../gateway/streams/config.ts';

t.test('defaults are the interface values', async (t) => {
  const l = streamLimitsFromEnv({});
  t.same(l, defaultStreamLimits);
  t.equal(l.connectionsPerMinute, 10);
  t.equal(l.messagesPerMinute, 60);
  t.equal(l.maxSubscriptions, 25);
});

t.test('overrides and refusals', async (t) => {
  t.match(streamLimitsFromEnv({ WS_MAX_SUBSCRIPTIONS: '50', WS_MAX_BUFFERED_BYTES: '65536', WS_MESSAGES_PER_MINUTE: '' }), { maxSubscriptions: 50, maxBufferedBytes: 65536, messagesPerMinute: 60 });
  t.throws(() => streamLimitsFromEnv({ WS_MAX_SUBSCRIPTIONS: '0', WS_IDLE_TIMEOUT_SECONDS: '2', WS_CONNECTIONS_PER_MINUTE: 'ten' }), {
    message: /WS_CONNECTIONS_PER_MINUTE.*"ten".*WS_MAX_SUBSCRIPTIONS must be a whole number from 1 to 10000 \(got "0"\).*WS_IDLE_TIMEOUT_SECONDS must be a whole number from 8/s,
  });
});
