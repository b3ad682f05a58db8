/**
 * `/llms.txt`: the API as markdown for machine reading (llmstxt.org layout), generated
 * from the same route declarations as the OpenAPI document, so the two cannot drift.
 * Every operation has its own section in each form it is served in (`/api/...` and the
 * earlier path), each showing its request body with an example.
 */
import { errorCodes, earlierErrorCodes } from './errors.ts';
import { describeType, toJsonSchema, type JsonSchema } from './jsonSchema.ts';
import { forms, pathForForm, type Form, type Route } from './route.ts';
import { errorStatuses, routeExamples, takesBody, type OpenApiInfo } from './openapi.ts';

function fields(schema: JsonSchema | undefined): string[] {
  if (schema === undefined) return [];
  const props = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema['required'] ?? []) as string[]);
  return Object.entries(props).map(([name, prop]) => {
    const doc = typeof prop['description'] === 'string' ? ` - ${prop['description']}` : '';
    return `\`${name}\`${required.has(name) ? '' : ' (optional)'}: ${describeType(prop)}${doc}`;
  });
}

function authText(route: Route): string {
  const base = route.auth === 'none' ? 'public' : route.auth === 'optional' ? 'optional auth' : route.auth === 'admin' ? 'admin wallet' : 'auth required';
  const scope = route.scope === undefined ? '' : `, scope \`${route.scope}\``;
  const accepts = route.accepts === undefined ? '' : `, accepts ${route.accepts.join('/')}`;
  return `${base}${scope}${accepts}`;
}

/** One operation: a route in one form, with its inputs, request body (fields and an example) and replies. */
function section(route: Route, form: Form): string {
  const components: Record<string, JsonSchema> = {};
  const conv = (s: Parameters<typeof toJsonSchema>[0] | undefined) => (s === undefined ? undefined : toJsonSchema(s, components, ''));
  const path = pathForForm(route, form)!;
  const duplicated = form === 'earlier' && route.forms.includes('current');
  const lines: string[] = [`### ${route.method} ${path}`, '', duplicated ? `${route.summary} (earlier form)` : route.summary];
  if (route.description !== undefined) lines.push('', route.description);
  lines.push('', `- Auth: ${authText(route)}; rate-limit group \`${route.group}\``);
  if (duplicated) lines.push(`- Earlier form of \`${route.method} ${route.path}\`: session cookie (or the current form's credentials), errors \`{ error, message, details? }\``);
  const other = form === 'current' ? pathForForm(route, 'earlier') : null;
  if (other !== null) lines.push(`- Earlier form: \`${route.method} ${other}\` (the same body)`);
  for (const [label, schema] of [['Path', route.params], ['Query', route.query]] as const) {
    const list = fields(conv(schema));
    if (list.length > 0) lines.push(`- ${label}: ${list.join('; ')}`);
  }
  const examples = routeExamples(route);
  if (route.body !== undefined) {
    const body = conv(route.body);
    const list = fields(body);
    lines.push(`- Body (JSON): ${list.length > 0 ? list.join('; ') : describeType(body)}`);
    if (examples.body !== undefined) lines.push(`- Example body: \`${JSON.stringify(examples.body)}\``);
  } else if (takesBody(route)) {
    lines.push('- Body: none (send none, or any JSON, which is ignored; a body that is not JSON is 400)');
  }
  const responses = form === 'earlier' ? (route.earlier?.responses ?? route.responses) : route.responses;
  for (const [status, schema] of Object.entries(responses)) {
    lines.push(`- ${status}${route.produces === undefined ? '' : ` (${route.produces})`}: ${describeType(conv(schema))}`);
  }
  lines.push(`- Errors: ${errorStatuses(route, form).join(', ')}`);
  const names = Object.keys(components);
  if (names.length > 0) lines.push(`- Types: ${names.map((n) => `\`${n}\` = ${describeType(components[n])}`).join('; ')}`);
  return lines.join('\n');
}

export function buildLlmsTxt(routes: readonly Route[], info: OpenApiInfo): string {
  const groups = new Map<string, Route[]>();
  for (const route of routes) {
    const tag = route.tags?.[0] ?? route.group;
    groups.set(tag, [...(groups.get(tag) ?? []), route]);
  }
  const out: string[] = [
    `# ${info.title}`,
    '',
    `> ${info.description?.split('\n')[0] ?? 'HTTP API'} (version ${info.version}).`,
    '',
    'Machine-readable descriptions: [OpenAPI JSON](/openapi/json), [OpenAPI YAML](/openapi/yaml), [AsyncAPI JSON](/asyncapi/json).',
    '',
    '## Conventions',
    '',
    '- Current form: paths under `/api`, `Authorization: Bearer <token>` or API-key headers, errors `{ code, message, details }`.',
    '- Earlier form: the same path without `/api` where a route lists one, cookie `session`, errors `{ error, message, details? }`.',
    '- API keys: `X-API-Key`, `X-API-Timestamp` (Unix ms, within 30 s), `X-API-Signature` = lowercase hex HMAC-SHA256 of the timestamp string keyed with the secret.',
    '- WAD and COLLATERAL6 amounts are integer strings in their fixed point; counts and Unix times are JSON numbers.',
    '- Unknown fields are ignored; bad input answers 400 with a message naming the field and `details: { field, location }`.',
    `- Current error codes: ${Object.entries(errorCodes).map(([c, s]) => `\`${c}\` ${s.status}`).join(', ')}.`,
    `- Earlier error codes: ${Object.entries(earlierErrorCodes).map(([c, s]) => `\`${c}\` ${s}`).join(', ')}.`,
    '- Rate limits per group and caller; 429 carries `Retry-After` (s) and `details: { limit, resetAt }` (Unix ms).',
    '- Order entry over the WebSocket `/ws/private` (after AUTH, scope `trade`): `{"method":"PLACE"|"REPLACE"|"CANCEL"|"PLACE_BATCH"|"CANCEL_BATCH"|"REPLACE_BATCH","params":<the body of the matching /api/mm/orders route>,"id":7}` -> `{"result":<its 200 body>,"id":7}` or `{"error":{"code","status","message","details"},"id":7}`; the orders budget is shared with REST (AsyncAPI channel `orders`).',
    "- Admin monitoring over the WebSocket `/ws/monitor` (AUTH with an admin wallet's token, or its API key with scope `admin`; anyone else gets `{\"error\":{\"code\":4003,\"msg\":\"Admin access required for monitoring stream\"}}` and a close): SUBSCRIBE `venue@health` (every second: commands/s, journal commit p99, event-loop lag, connections per stream, open orders, heap) and `venue@alerts` (MMP trips, slow-consumer closes, rate-limit storms, journal errors, recovery).",
  ];
  for (const [group, list] of groups) {
    out.push('', `## ${group}`, '');
    out.push(list.flatMap((route) => forms.filter((f) => pathForForm(route, f) !== null).map((f) => section(route, f))).join('\n\n'));
  }
  return out.join('\n') + '\n';
}
