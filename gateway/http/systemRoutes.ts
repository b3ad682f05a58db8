/**
 * Routes of the framework itself: Prometheus metrics and the generated documents
 * (`/openapi`, `/openapi/json`, `/openapi/yaml`, `/llms.txt`, `/asyncapi/json`).
 * The documents describe the API routes plus these routes; each is generated on first
 * request (the route table is final by then) and served pre-serialised afterwards.
 */
import { Type } from '@sinclair/typebox';
import type { AsyncApiInfo, AsyncApiRegistry } from './asyncapi.ts';
import { buildLlmsTxt } from './llmsTxt.ts';
import type { Metrics } from './metrics.ts';
import { buildOpenApi, openApiYaml, type OpenApiInfo } from './openapi.ts';
import { openApiPageHtml } from './openapiPage.ts';
import { defineRoute, type Route } from './route.ts';

export type SystemRoutesOptions = {
  /** The venue's routes, described by the documents. */
  readonly apiRoutes: readonly Route[];
  readonly info: OpenApiInfo;
  /** Omit to serve no `/metrics`. */
  readonly metrics?: Metrics;
  /** `admin` keeps `/metrics` for admin wallets; default public, as scrapers expect on a private network. */
  readonly metricsAuth?: 'none' | 'admin';
  /** Omit to serve an AsyncAPI document with no channels. */
  readonly asyncapi?: AsyncApiRegistry;
  readonly asyncapiInfo?: AsyncApiInfo;
};

const docsTag = ['documentation'];

function once(make: () => string): () => string {
  let cached: string | null = null;
  return () => (cached ??= make());
}

export function systemRoutes(options: SystemRoutesOptions): Route[] {
  const own: Route[] = [];
  const all = (): Route[] => [...options.apiRoutes, ...own];
  const openapiJson = once(() => JSON.stringify(buildOpenApi(all(), options.info)));
  const openapiYaml = once(() => openApiYaml(JSON.parse(openapiJson()) as ReturnType<typeof buildOpenApi>));
  const llms = once(() => buildLlmsTxt(all(), options.info));
  const page = once(() => openApiPageHtml(options.info.title));
  const asyncapiJson = once(() =>
    JSON.stringify(
      options.asyncapi?.document(options.asyncapiInfo ?? { title: `${options.info.title} streams`, version: options.info.version }) ?? {
        asyncapi: '3.0.0',
        info: { title: `${options.info.title} streams`, version: options.info.version },
        channels: {},
      },
    ),
  );
  const document = Type.Object({}, { additionalProperties: true });
  const text = Type.String();

  if (options.metrics !== undefined) {
    const metrics = options.metrics;
    own.push(
      defineRoute({
        method: 'GET',
        path: '/metrics',
        forms: ['earlier'],
        group: 'docs',
        auth: options.metricsAuth ?? 'none',
        // An admin route needs scope admin (route.ts).
        ...(options.metricsAuth === 'admin' ? { scope: 'admin' as const } : {}),
        summary: 'Prometheus metrics',
        description: 'Text exposition of the process, HTTP, engine, journal, worker and WebSocket metrics.',
        tags: ['operations'],
        produces: 'text/plain; version=0.0.4',
        responses: { 200: text },
        handler: async () => ({ raw: await metrics.text(), contentType: metrics.contentType }),
      }),
    );
  }
  own.push(
    defineRoute({
      method: 'GET',
      path: '/openapi',
      forms: ['earlier'],
      group: 'docs',
      auth: 'none',
      summary: 'Interactive API documentation',
      description: 'A self-contained HTML page that renders the OpenAPI document of `/openapi/json`.',
      tags: docsTag,
      produces: 'text/html',
      responses: { 200: text },
      handler: () => ({ raw: page(), contentType: 'text/html; charset=utf-8' }),
    }),
    defineRoute({
      method: 'GET',
      path: '/openapi/json',
      forms: ['earlier'],
      group: 'docs',
      auth: 'none',
      summary: 'OpenAPI 3.1 document (JSON)',
      description: 'Generated from the route declarations at the first request; the same document as `/openapi/yaml`.',
      tags: docsTag,
      responses: { 200: document },
      handler: () => ({ raw: openapiJson() }),
    }),
    defineRoute({
      method: 'GET',
      path: '/openapi/yaml',
      forms: ['earlier'],
      group: 'docs',
      auth: 'none',
      summary: 'OpenAPI 3.1 document (YAML)',
      description: 'The document of `/openapi/json` as YAML.',
      tags: docsTag,
      produces: 'application/yaml',
      responses: { 200: text },
      handler: () => ({ raw: openapiYaml(), contentType: 'application/yaml; charset=utf-8' }),
    }),
    defineRoute({
      method: 'GET',
      path: '/llms.txt',
      forms: ['earlier'],
      group: 'docs',
      auth: 'none',
      summary: 'The API as markdown for machine reading',
      description: 'llmstxt.org layout: conventions, then every operation in both forms with its parameters, request body (fields and an example) and replies.',
      tags: docsTag,
      produces: 'text/markdown',
      responses: { 200: text },
      handler: () => ({ raw: llms(), contentType: 'text/markdown; charset=utf-8' }),
    }),
    defineRoute({
      method: 'GET',
      path: '/asyncapi/json',
      forms: ['earlier'],
      group: 'docs',
      auth: 'none',
      summary: 'AsyncAPI 3.0 document of the WebSocket streams',
      description: 'The three streams (`/ws/public`, `/ws/private`, `/ws/rfq/mm`) as servers, each channel on the stream it lives on, with message schemas.',
      tags: docsTag,
      responses: { 200: document },
      handler: () => ({ raw: asyncapiJson() }),
    }),
  );
  return own;
}
