/**
 * The private stream, WebSocket order entry and RFQ stream suites again with settlement on an
 * embedded chain (TEST_CHAIN=embedded: test/gateway/support/testApp.ts): the same frames, and
 * every app settles all it committed, final and reconciled, before it closes.
 */
import { suitesOnChain } from './support/suites.ts';

suitesOnChain('stream', 'gateway/streams', ['private', 'orderEntry', 'rfq']);
