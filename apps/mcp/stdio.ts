import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Logger } from '../../src/logger.js';
import { createMemloom } from '../client/index.js';
import { clientBackend } from './backend.js';
import { createMcpServer, type McpDefaults } from './tools.js';

export interface StdioOptions {
  /** A running memloom's API; this process never opens the database. */
  url: string;
  apiKey: string | undefined;
  eventsDir: string;
  /** The tenant of the key, so that spilled events land in the right tenant's folder. */
  tenant: string | undefined;
  defaults: McpDefaults;
  version: string;
  log: Logger;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

/**
 * `memloom mcp`: an MCP server on stdin/stdout for one agent. stdout carries only the protocol
 * (logs go to stderr). Resolves when the agent closes the connection, after the client has
 * flushed (or spilled) every remembered event.
 */
export async function runStdioServer(o: StdioOptions): Promise<void> {
  const client = createMemloom({
    url: o.url,
    apiKey: o.apiKey,
    eventsDir: o.eventsDir,
    tenant: o.tenant,
    defaults: { user_id: o.defaults.user_id, agent_id: o.defaults.agent_id, session_id: o.defaults.session_id, dataset: o.defaults.dataset },
    onError: (err) => o.log.warn({ code: err.code }, 'mcp: event not delivered'),
  });
  const server = createMcpServer(clientBackend(client, 'buffered'), o.defaults, o.version);
  const transport = new StdioServerTransport(o.stdin as NodeJS.ReadStream | undefined, o.stdout as NodeJS.WriteStream | undefined);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  (o.stdin ?? process.stdin).on('end', () => void transport.close());
  await server.connect(transport);
  o.log.debug({ url: o.url }, 'mcp stdio server ready');
  await closed;
  await client.close();
}
