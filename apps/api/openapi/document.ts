import { z } from 'zod';
import { ROUTES, type RouteDoc } from './catalog.js';

type JsonSchema = Record<string, unknown>;

/** JSON Schema (2020-12, as OpenAPI 3.1 uses) of what a client sends: defaults make fields optional. */
function inputSchema(schema: z.ZodType): JsonSchema {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as JsonSchema;
  delete out.$schema;
  return out;
}

function parameters(route: RouteDoc): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [where, obj] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!obj) continue;
    const schema = inputSchema(obj) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      const { description, ...rest } = prop;
      out.push({
        name,
        in: where,
        required: where === 'path' || (schema.required ?? []).includes(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
      });
    }
  }
  return out;
}

function operation(route: RouteDoc): JsonSchema {
  const responses: Record<string, JsonSchema> = {};
  for (const [status, r] of Object.entries(route.responses)) {
    const type = r.contentType ?? 'application/json';
    responses[status] = {
      description: r.description,
      ...(r.schema || type !== 'application/json' ? { content: { [type]: r.schema ? { schema: inputSchema(r.schema) } : {} } } : {}),
    };
  }
  if (route.auth && !responses['401']) responses['401'] = { description: 'no valid API key (when keys are configured)' };
  const params = parameters(route);
  return {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    ...(route.auth ? {} : { security: [] }),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: inputSchema(route.body) } } } } : {}),
    ...(route.bodyContentType ? { requestBody: { required: true, content: { [route.bodyContentType]: { schema: { type: 'string' } } } } } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of the API, built from the route catalog and its zod schemas. */
export function openApiDocument(version: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of ROUTES) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'memloom API',
      version,
      description:
        'Long-term memory for AI agents: fire-and-forget events, queue workers, hybrid recall. Errors answer `{"error": {"code", "message", "details"?}}`.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }, { apiKey: [] }],
    tags: ['events', 'recall', 'memories', 'graph', 'export', 'agents', 'ops'].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'a key of MEMLOOM_API_KEYS; it selects the tenant' },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      },
    },
  };
}
