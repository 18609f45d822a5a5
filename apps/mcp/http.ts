import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createApi } from '../client/api.js';
import { clientBackend } from './backend.js';
import type { McpDefaults } from './tools.js';

/**
 * The MCP SDK and the tools load with the first POST /mcp, not at startup: they were ~0.1 s of a
 * start's module loading (2026-12-07), and most instances never serve MCP over HTTP.
 */
async function loadMcp() {
  const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('./tools.js'),
  ]);
  return { StreamableHTTPServerTransport, createMcpServer };
}

/**
 * MCP over streamable HTTP at /mcp, stateless: each POST is one JSON-RPC exchange with a fresh
 * server. The tools call the API in-process (app.inject) with the caller's own key, so the tenant,
 * validation and errors are exactly those of the HTTP routes. Defaults for the tools come from the
 * query string (`/mcp?user_id=u-42&agent_id=cursor`).
 */
export function mcpRoutes(app: FastifyInstance, version: string): void {
  app.post('/mcp', async (req, reply) => {
    const { StreamableHTTPServerTransport, createMcpServer } = await loadMcp();
    const server = createMcpServer(
      clientBackend(createApi({ url: 'http://memloom.internal', fetch: injectFetch(app, req), timeoutMs: 120_000 }), 'direct'),
      defaultsOf(req),
      version,
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req.raw, reply.raw, req.body);
    } catch (err) {
      req.log.error({ err }, 'mcp request failed');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
      }
    }
  });
  // Stateless: no server-to-client stream to open, no session to end.
  const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) =>
    reply
      .status(405)
      .header('allow', 'POST')
      .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; POST JSON-RPC messages.' }, id: null });
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);
}

function defaultsOf(req: FastifyRequest): McpDefaults {
  const q = (req.query ?? {}) as Record<string, unknown>;
  const pick = (k: string) =>
    typeof q[k] === 'string' && (q[k] as string).trim() !== '' && (q[k] as string).length <= 200 ? (q[k] as string).trim() : undefined;
  return { user_id: pick('user_id'), agent_id: pick('agent_id'), session_id: pick('session_id'), dataset: pick('dataset') };
}

/** A fetch that answers through this app's own routes, carrying the MCP request's credentials. */
function injectFetch(app: FastifyInstance, outer: FastifyRequest): typeof fetch {
  const auth: Record<string, string> = {};
  if (typeof outer.headers.authorization === 'string') auth.authorization = outer.headers.authorization;
  if (typeof outer.headers['x-api-key'] === 'string') auth['x-api-key'] = outer.headers['x-api-key'];
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const headers = { ...(init.headers as Record<string, string> | undefined), ...auth };
    const res = await app.inject({
      method: (init.method ?? 'GET') as 'GET',
      url: url.pathname + url.search,
      headers,
      ...(typeof init.body === 'string' ? { payload: init.body } : {}),
    });
    const outHeaders = new Headers();
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) outHeaders.set(k, Array.isArray(v) ? v.join(', ') : String(v));
    return new Response(res.statusCode === 204 ? null : res.rawPayload, { status: res.statusCode, headers: outHeaders });
  }) as typeof fetch;
}
