import type { Config } from '../../../src/config.js';
import type { Logger } from '../../../src/logger.js';
import { VERSION } from '../../api/version.js';
import { runStdioServer } from '../../mcp/stdio.js';
import { flagString, type ParsedArgs } from '../args.js';
import { remoteTarget } from '../remote.js';

/**
 * `memloom mcp`: the MCP server on stdio for one agent, talking to a running memloom over HTTP
 * (never opening the database). Tool defaults from flags or MEMLOOM_USER_ID, MEMLOOM_AGENT_ID,
 * MEMLOOM_SESSION_ID, MEMLOOM_DATASET; MEMLOOM_TENANT names the key's tenant for spilled events.
 */
export async function mcpCommand(config: Config, log: Logger, args: ParsedArgs): Promise<void> {
  const { url, apiKey } = remoteTarget(config, args);
  const env = process.env;
  await runStdioServer({
    url,
    apiKey,
    eventsDir: config.EVENTS_DIR,
    tenant: env.MEMLOOM_TENANT,
    version: VERSION,
    log,
    defaults: {
      user_id: flagString(args, 'user') ?? env.MEMLOOM_USER_ID,
      agent_id: flagString(args, 'agent') ?? env.MEMLOOM_AGENT_ID ?? 'mcp',
      session_id: flagString(args, 'session') ?? env.MEMLOOM_SESSION_ID,
      dataset: flagString(args, 'dataset') ?? env.MEMLOOM_DATASET,
    },
  });
}
