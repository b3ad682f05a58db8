/**
 * The public journal (PUBLIC_JOURNAL=1, docs/chain.md "The audit"): the committed commands in
 * pages, the stored snapshots, a snapshot's engine state. What `npm run audit` replays; off by
 * default, when every route here answers 404 saying so.
 */
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../http/route.ts';
import { errorReply } from '../http/errors.ts';
import type { Services } from '../services.ts';

const MAX_PAGE = 1000;

const off = () => errorReply('not_found', 'This venue does not publish its journal (PUBLIC_JOURNAL is off): the audit needs a venue that does (docs/chain.md "The audit")');

const SnapshotInfoSchema = Type.Object({
  seq: Type.Integer({ description: 'The last command the snapshot holds (0: the genesis, the venue as created)' }),
  hash: Type.String({ description: "keccak-256 of the engine state's bytes: the engine's state hash at `seq`" }),
  takenAt: Type.Integer({ description: 'Unix ms, venue clock' }),
  bytes: Type.Integer({ description: 'Size of the engine state' }),
});

export function journalRoutes(s: Services) {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/journal',
      group: 'markets',
      errors: [404],
      auth: 'none',
      tags: ['audit'],
      summary: 'The committed command journal',
      examples: { query: { fromSeq: 1, limit: 500 } },
      description:
        "Every command the venue committed, in seq order from `fromSeq`, at most `limit` (default 500, at most 1,000). `frame` is the command in the journal's binary codec, base64: an auditor decodes it and replays it through the engine (`npm run audit`); `command` is the same command in JSON, bigints as decimal strings. `nextSeq` is where the next page starts; `lastSeq` the last committed command (an empty page when `fromSeq` is past it). New commands as they commit: the `global@journal` channel on /ws/public. Served only with PUBLIC_JOURNAL=1 (404 otherwise); a venue that pruned its journal before it was published answers 404 for the commands it no longer has, naming the first it has.",
      query: Type.Object({
        fromSeq: Type.Optional(Type.Integer({ minimum: 1, default: 1, errorMessage: 'fromSeq must be a positive integer' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 500, errorMessage: `limit must be greater than 0 and at most ${MAX_PAGE}` })),
      }),
      responses: {
        200: Type.Object({
          commands: Type.Array(
            Type.Object({
              seq: Type.Integer(),
              ts: Type.Integer({ description: 'Unix ms: the venue time the command carries' }),
              type: Type.String({ description: 'The command type (place, cancel, deposit, chain_event, clock, ...)' }),
              frame: Type.String({ description: "The command in the journal's codec, base64 (docs/persistence.md)" }),
              command: Type.Object({}, { additionalProperties: true, description: 'The command in JSON (bigints as decimal strings)' }),
            }),
          ),
          nextSeq: Type.Integer(),
          lastSeq: Type.Integer(),
        }),
      },
      handler: ({ query }) => {
        const j = s.publicJournal;
        if (j === null) return off();
        const page = j.page(query.fromSeq ?? 1, query.limit ?? 500);
        if ('pruned' in page) return errorReply('not_found', `commands up to seq ${page.pruned} were pruned before the journal was published: start from a snapshot at seq ${page.pruned} or later (GET /api/journal/snapshots)`, { field: 'fromSeq', location: 'query' });
        return { body: page };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/journal/snapshots',
      group: 'markets',
      errors: [404],
      auth: 'none',
      tags: ['audit'],
      summary: 'The stored snapshots',
      description: 'Newest first. With PUBLIC_JOURNAL=1 the genesis (seq 0, the venue as created) is always kept, beside the newest ones; an audit starts from it, or from a later one (checked by the next state hash on chain). 404 without PUBLIC_JOURNAL.',
      responses: { 200: Type.Object({ snapshots: Type.Array(SnapshotInfoSchema) }) },
      handler: () => {
        const j = s.publicJournal;
        if (j === null) return off();
        return { body: { snapshots: j.snapshots() } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/journal/snapshots/:seq',
      group: 'markets',
      auth: 'none',
      tags: ['audit'],
      summary: "A snapshot's engine state",
      examples: { params: { seq: '0' } },
      description: "The engine's state at `seq` as bytes (the engine's serialisation, docs/persistence.md): `Venue.restore` reads it, and its keccak-256 is the `X-State-Hash` header and the state hash of `seq`. 404 for a seq no snapshot has, and without PUBLIC_JOURNAL.",
      produces: 'application/octet-stream',
      params: Type.Object({ seq: Type.String({ pattern: '^[0-9]{1,15}$', errorMessage: 'seq must be a snapshot seq (GET /api/journal/snapshots)' }) }),
      responses: { 200: Type.String({ contentMediaType: 'application/octet-stream', description: 'The engine state' }) },
      handler: ({ params }) => {
        const j = s.publicJournal;
        if (j === null) return off();
        const found = j.snapshot(Number(params.seq));
        if (found === null) return errorReply('not_found', `no snapshot at seq ${params.seq} (GET /api/journal/snapshots lists them)`);
        return { raw: found.state, contentType: 'application/octet-stream', headers: { 'X-State-Hash': found.info.hash, 'X-Snapshot-Seq': String(found.info.seq) } };
      },
    }),
  ];
}
