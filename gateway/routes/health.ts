/** Health (interface.md "Health"): current form ISO timestamp, earlier form Unix ms. */
import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '../http/route.ts';

export function healthRoutes() {
  const current = Type.Object({ status: Type.Literal('ok'), timestamp: Type.String({ description: 'ISO 8601' }) });
  return [
    ...(['/api/health-signal', '/api/health'] as const).map((path) =>
      defineRoute({ method: 'GET', path, group: 'health', auth: 'none', summary: 'Liveness', description: 'Answers while the process serves HTTP; `timestamp` is the venue clock (ISO 8601). Not rate limited, no input, no credentials.', responses: { 200: current }, handler: ({ now }) => ({ body: { status: 'ok' as const, timestamp: new Date(now).toISOString() } }) }),
    ),
    defineRoute({
      method: 'GET',
      path: '/health',
      forms: ['earlier'],
      group: 'health',
      auth: 'none',
      summary: 'Liveness (earlier form)',
      description: 'Answers while the process serves HTTP; `timestamp` is the venue clock in Unix milliseconds. Not rate limited, no input, no credentials.',
      responses: { 200: Type.Object({ status: Type.Literal('ok'), timestamp: Type.Integer({ description: 'Unix milliseconds' }) }) },
      handler: ({ now }) => ({ body: { status: 'ok' as const, timestamp: now } }),
    }),
  ];
}
