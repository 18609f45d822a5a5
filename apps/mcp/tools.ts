import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { EVENT_ROLES, EVENT_TYPES } from '../../src/events/constants.js';
import { MEMORY_KINDS } from '../../src/domain/vocabulary.js';
import { resultDate } from '../../src/domain/result-date.js';
import { DEFAULT_RECALL_MODE, RECALL_MODES } from '../../src/recall/schema.js';
import { MemloomError } from '../../src/errors.js';
import type { ForgetAnswer, ForgetScope, RecallAnswer, RecallRequest } from '../client/types.js';
import type { MemloomEvent } from '../client/wire.js';

/** What the tools need from memloom: the HTTP client (stdio) or the API in-process (/mcp). */
export interface McpBackend {
  /** Fire-and-forget: resolves as soon as the event is queued (stdio) or stored (HTTP), never after processing. */
  remember(event: MemloomEvent): Promise<{ id: string; status: 'queued' | 'stored' }>;
  recall(request: RecallRequest): Promise<RecallAnswer>;
  /** `id`: a recall result's id (a memory, or a chunk whose event goes); otherwise a scope of POST /v1/forget. */
  forget(scope: ForgetScope | { id: string }): Promise<ForgetAnswer>;
  workingMemory(userId: string | undefined, budgetTokens?: number): Promise<string | null>;
}

/** Applied when the agent's call leaves them out (MEMLOOM_USER_ID etc. for stdio, ?user_id= on /mcp). */
export interface McpDefaults {
  user_id?: string | undefined;
  agent_id?: string | undefined;
  session_id?: string | undefined;
  dataset?: string | undefined;
}

const scope = z.string().trim().min(1).max(200);
const WM_URI = 'memloom://working-memory';

/** The memloom MCP server: tools remember, recall, forget, get_working_memory and the working memory as a resource. */
export function createMcpServer(backend: McpBackend, defaults: McpDefaults, version: string): McpServer {
  const server = new McpServer(
    { name: 'memloom', version },
    {
      instructions:
        'memloom is your long-term memory. Read the working-memory resource (or call get_working_memory) at the start of a task; call recall before answering questions about past work, decisions or preferences; call remember for anything worth keeping (decisions, preferences, facts, outcomes). remember returns at once.',
    },
  );
  const user = (u: string | undefined) => u ?? defaults.user_id;

  server.registerTool(
    'remember',
    {
      title: 'Remember',
      description:
        'Store something worth keeping in long-term memory: a decision and its reason, a user preference, a fact about the project, an outcome, a procedure that worked. Returns at once (fire-and-forget); memloom extracts memories in the background, so it becomes recallable within seconds to a minute. Write one self-contained statement per call, with names instead of pronouns.',
      inputSchema: {
        content: z
          .string()
          .trim()
          .min(1)
          .max(100_000)
          .describe('what to remember, self-contained (e.g. "We chose PostgreSQL over MongoDB for the event store because we need transactions.")'),
        type: z.enum(EVENT_TYPES).default('note').describe('decision, note (default), message, document, …'),
        role: z.enum(EVENT_ROLES).optional(),
        importance: z.number().int().min(1).max(10).optional().describe('1-10; 7 or more for things that must not be forgotten'),
        user_id: scope.optional().describe('whose memory this is (default: the configured user)'),
        session_id: scope.optional(),
        metadata: z.record(z.string(), z.unknown()).optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        const event: MemloomEvent = {
          content: args.content,
          type: args.type,
          role: args.role,
          importance: args.importance,
          metadata: args.metadata,
          user_id: user(args.user_id),
          agent_id: defaults.agent_id,
          session_id: args.session_id ?? defaults.session_id,
          dataset: defaults.dataset,
        };
        const r = await backend.remember(event);
        return `Remembered (event ${r.id}, ${r.status}). It becomes recallable once processed; no need to wait.`;
      }),
  );

  server.registerTool(
    'recall',
    {
      title: 'Recall',
      description:
        'Search long-term memory before answering questions about earlier work, decisions, preferences, people or facts. Hybrid search (meaning + keywords + entities + recency). mode "chunks" (default) returns the raw evidence from past messages (each with the neighbouring turns in its index key); "memories" distilled statements; "graph" relations between entities; "auto" memories and chunks together. Results are ranked, best first, each with its kind, date, score and id (which forget takes).',
      inputSchema: {
        query: z.string().trim().min(1).max(10_000).describe('a question or keywords, e.g. "which database did we choose and why"'),
        mode: z.enum(RECALL_MODES).default(DEFAULT_RECALL_MODE),
        limit: z.number().int().min(1).max(50).default(8),
        user_id: scope.optional().describe('whose memory to search (default: the configured user)'),
        session_id: scope.optional().describe('only this session'),
        kinds: z.array(z.enum(MEMORY_KINDS)).min(1).optional().describe('only these kinds of memory'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        const answer = await backend.recall({
          query: args.query,
          mode: args.mode,
          limit: args.limit,
          user_id: user(args.user_id),
          session_id: args.session_id,
          kinds: args.kinds,
          dataset: defaults.dataset,
        });
        return formatRecall(answer);
      }),
  );

  server.registerTool(
    'forget',
    {
      title: 'Forget',
      description:
        "Delete memory for good, following provenance. Give exactly one: id (the id of a recall result: a memory is deleted; a chunk is forgotten with the message or document it came from; for a graph result, pass one of its events as event_id), event_id, session_id (the configured user's session unless user_id names another), user_id (everything of that user) or dataset. Only when the user asks to forget something or a memory is wrong and harmful; to correct a memory, remember the correct statement instead.",
      inputSchema: {
        id: z.uuid().optional().describe('the id of a recall result (memory or chunk), as recall prints it: "(id …)"'),
        event_id: z.uuid().optional().describe('a stored event (remember returns it; graph results list theirs)'),
        session_id: scope.optional(),
        user_id: scope.optional().describe('alone: everything of this user; with session_id: whose session (default: the configured user)'),
        dataset: scope.optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        const given = Object.entries(args).filter(([, v]) => v !== undefined) as Array<[string, string]>;
        const sessionOfUser = given.length === 2 && args.session_id !== undefined && args.user_id !== undefined;
        if (given.length !== 1 && !sessionOfUser)
          throw new MemloomError('INPUT_INVALID', 'Give exactly one of id, event_id, session_id, user_id, dataset (user_id may accompany session_id).', {
            kind: 'input',
          });
        const [key, value] = given[0] as [string, string];
        // A session id is unique only within its user: the configured user's, unless the call names one.
        const target: ForgetScope | { id: string } =
          args.session_id !== undefined
            ? { session_id: args.session_id, ...(user(args.user_id) ? { user_id: user(args.user_id) as string } : {}) }
            : ({ [key]: value } as ForgetScope | { id: string });
        const r = await backend.forget(target);
        if (r.nothing_to_forget) return 'Nothing to forget: no such object (or already forgotten).';
        const removed = Object.entries(r.removed)
          .filter(([, n]) => n > 0)
          .map(([k, n]) => `${n} ${k}`)
          .join(', ');
        return `Forgotten: ${removed || 'nothing else'}.`;
      }),
  );

  server.registerTool(
    'get_working_memory',
    {
      title: 'Get working memory',
      description:
        'The working memory of a user: a short Markdown digest of what matters now (who the user is, preferences, current decisions and what they replaced, people, open plans and deadlines, recent changes), each line dated, with a short memory id (m:…) that GET /v1/memories/m:… opens. Read it at the start of a task. The same text is the resource memloom://working-memory.',
      inputSchema: {
        user_id: scope.optional().describe('default: the configured user'),
        budget_tokens: z
          .number()
          .int()
          .min(1)
          .max(100_000)
          .optional()
          .describe('at most this many tokens: whole lines, least important and oldest dropped first'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(
        async () =>
          (await backend.workingMemory(user(args.user_id), args.budget_tokens)) ??
          'No working memory yet for this user (nothing important recorded, or not refreshed yet).',
      ),
  );

  const readWm = async (uri: URL, userId: string | undefined) => ({
    contents: [{ uri: uri.href, mimeType: 'text/markdown', text: (await backend.workingMemory(userId)) ?? '_No working memory yet._' }],
  });
  server.registerResource(
    'working-memory',
    WM_URI,
    {
      title: 'Working memory',
      mimeType: 'text/markdown',
      description: `What matters now for ${defaults.user_id ? `user ${defaults.user_id}` : 'the default user'}: recent decisions, open plans, key procedures.`,
    },
    (uri) => readWm(uri, defaults.user_id),
  );
  server.registerResource(
    'working-memory-of-user',
    new ResourceTemplate(`${WM_URI}/{user_id}`, { list: undefined }),
    {
      title: 'Working memory of a user',
      mimeType: 'text/markdown',
      description: 'The working memory of the user named in the URI.',
    },
    (uri, vars) => readWm(uri, decodeURIComponent(String(vars.user_id))),
  );
  return server;
}

/** A tool never throws into the server: every failure is an MCP tool error naming memloom's error code. */
async function guarded(fn: () => Promise<string>): Promise<CallToolResult> {
  try {
    return { content: [{ type: 'text', text: await fn() }] };
  } catch (err) {
    const text = err instanceof MemloomError ? `${err.code}: ${err.message}` : `INTERNAL: ${err instanceof Error ? err.message : String(err)}`;
    return { isError: true, content: [{ type: 'text', text }] };
  }
}

function formatRecall(a: RecallAnswer): string {
  if (a.match === 'none' || a.results.length === 0) return 'Nothing is stored about this (match: none).';
  const lines = a.results.map((r, i) => {
    const what = r.type === 'memory' ? (r.kind ?? 'memory') : r.type;
    // A graph result's id is an edge's, which forget does not take: its events are listed instead.
    const ref = r.type === 'triplet' ? `events ${r.source.event_ids.slice(0, 3).join(', ')}` : `id ${r.id}`;
    const old = r.current === false ? ', no longer current' : '';
    return `${i + 1}. [${what}, ${resultDate(r)}${old}, score ${r.score.toFixed(2)}] ${r.content} (${ref})`;
  });
  return `match: ${a.match}\n${lines.join('\n')}\n\nrecall_id ${a.recall_id}`;
}
