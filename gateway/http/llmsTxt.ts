/**
 * `/llms.txt`: the API as markdown for machine reading (llmstxt.org layout), generated
 * from the same route declarations as the OpenAPI document, so the two cannot drift.
 */
import { errorCodes, earlierErrorCodes } from './errors.ts';
import { describeType, toJsonSchema, type JsonSchema } from './jsonSchema.ts';
import { pathForForm, type Route } from './route.ts';
import type { OpenApiInfo } from './openapi.ts';

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

function section(route: Route): string {
  const components: Record<string, JsonSchema> = {};
  const conv = (s: Parameters<typeof toJsonSchema>[0] | undefined) => (s === undefined ? undefined : toJsonSchema(s, components, ''));
  const lines: string[] = [`### ${route.method} ${pathForForm(route, 'current') ?? pathForForm(route, 'earlier')}`, '', route.summary];
  if (route.description !== undefined) lines.push('', route.description);
  lines.push('', `- Auth: ${authText(route)}; rate-limit group \`${route.group}\``);
  const earlier = route.forms.includes('current') ? pathForForm(route, 'earlier') : null;
  if (earlier !== null) lines.push(`- Earlier form: \`${route.method} ${earlier}\``);
  for (const [label, schema] of [['Path', route.params], ['Query', route.query], ['Body (JSON)', route.body]] as const) {
    const list = fields(conv(schema));
    if (list.length > 0) lines.push(`- ${label}: ${list.join('; ')}`);
  }
  for (const [status, schema] of Object.entries(route.responses)) {
    lines.push(`- ${status}${route.produces === undefined ? '' : ` (${route.produces})`}: ${describeType(conv(schema))}`);
  }
  if (earlier !== null && route.earlier?.responses !== undefined) {
    for (const [status, schema] of Object.entries(route.earlier.responses)) lines.push(`- ${status} (earlier form): ${describeType(conv(schema))}`);
  }
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
  ];
  for (const [group, list] of groups) {
    out.push('', `## ${group}`, '');
    out.push(list.map(section).join('\n\n'));
  }
  return out.join('\n') + '\n';
}
