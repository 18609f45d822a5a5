/**
 * `memloom-hook` (also `memloom hook`): the agent hook for Claude Code and any agent that runs a
 * shell command on session and turn events with a JSON object on stdin (docs/agents.md).
 *
 * - SessionStart: prints the user's working memory as additional context (from the API, else from
 *   the file memloom writes under MEMLOOM_HOME), so the agent starts with it without a tool call.
 * - UserPromptSubmit: adds the context block for the prompt (POST /v1/context, MEMLOOM_CONTEXT_BUDGET
 *   tokens, default 800) as additional context when something matches, then records the prompt.
 * - Stop: records the assistant's last reply (read from the transcript, keyed by its uuid).
 * - PostToolUse: records the tool call (only if configured for it).
 * - SessionEnd: records the end of the session (a `session_end` marker: metadata of the session,
 *   never a chunk or a memory) and flushes the session file to disk.
 *
 * Without MEMLOOM_USER_ID events carry no user and the working memory loaded is that of events
 * without a user (usually none): the hook says so on stderr, once per session.
 *
 * Events are appended to EVENTS_DIR (durable at once, no server needed; the watcher ingests them)
 * when EVENTS_DIR is set, else posted to MEMLOOM_URL. A hook never fails the agent: every problem
 * is one line on stderr and the exit code is 0. Plain Node, compiled with the client: no tsx.
 */
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { briefingFileName } from '../../src/domain/briefing-file.js';
import { resultDate } from '../../src/domain/result-date.js';
import { createApi } from '../client/api.js';
import type { MemloomEvent } from '../client/wire.js';
import { httpFetch } from './http-fetch.js';
import { lastAssistantReply } from './transcript.js';

interface HookInput {
  hook_event_name?: string;
  session_id?: string;
  transcript_path?: string;
  cwd?: string;
  prompt?: string;
  source?: string;
  reason?: string;
  tool_name?: string;
  tool_input?: unknown;
  tool_response?: unknown;
}

const ALIASES: Record<string, string> = {
  'session-start': 'SessionStart',
  prompt: 'UserPromptSubmit',
  'user-prompt': 'UserPromptSubmit',
  stop: 'Stop',
  turn: 'Stop',
  tool: 'PostToolUse',
  'session-end': 'SessionEnd',
};

const KNOWN_EVENTS = new Set(Object.values(ALIASES));

/**
 * One line on stderr the first time a session's hook runs without MEMLOOM_USER_ID. Each hook event
 * is its own process, so "once" is a marker file per session under the temporary directory; when
 * it cannot be written the hook warns every time rather than never.
 */
function warnNoUserOnce(env: HookEnv, session: string | undefined, io: HookIo): void {
  const dir = path.join(env.TMPDIR || os.tmpdir(), `memloom-hook-${process.getuid?.() ?? 'user'}`);
  const key = createHash('sha256').update(session ?? '');
  const marker = path.join(dir, `no-user-${key.digest('hex').slice(0, 16)}`);
  try {
    mkdirSync(dir, { recursive: true });
    closeSync(openSync(marker, 'wx'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
  }
  io.stderr(
    'memloom-hook: MEMLOOM_USER_ID is not set: events are recorded without a user and no user’s working memory is loaded; set it in the hook’s env (docs/agents.md)\n',
  );
}

export interface HookEnv {
  [name: string]: string | undefined;
}

export interface HookIo {
  stdin: string;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: HookEnv;
}

export async function runHook(argv: string[], io: HookIo): Promise<void> {
  let input: HookInput;
  try {
    input = io.stdin.trim() === '' ? {} : (JSON.parse(io.stdin) as HookInput);
  } catch {
    io.stderr('memloom-hook: stdin is not JSON; nothing recorded\n');
    return;
  }
  const name = ALIASES[argv[0] ?? ''] ?? argv[0] ?? input.hook_event_name ?? '';
  const env = io.env;
  const user = env.MEMLOOM_USER_ID?.trim() || undefined;
  const agent = env.MEMLOOM_AGENT_ID ?? 'claude-code';
  const session = input.session_id ?? env.MEMLOOM_SESSION_ID;
  const api = createApi({
    url: (env.MEMLOOM_URL ?? `http://${env.HOST ?? '127.0.0.1'}:${env.PORT ?? '8787'}`).replace(/\/+$/, ''),
    apiKey: env.MEMLOOM_API_KEY,
    fetch: httpFetch,
    timeoutMs: Number(env.MEMLOOM_HOOK_TIMEOUT_MS ?? 3000),
  });
  const base = { user_id: user, agent_id: agent, session_id: session, dataset: env.MEMLOOM_DATASET };
  const record = (events: MemloomEvent[]) =>
    store(
      events.map((e) => ({ ...base, ...e })),
      env,
      session,
      io,
      api,
    );

  if (!user && KNOWN_EVENTS.has(name)) warnNoUserOnce(env, session, io);

  switch (name) {
    case 'SessionStart': {
      const md = await workingMemory(api, env, user, io);
      if (md)
        io.stdout(`${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: `# Working memory (memloom)\n\n${md}` } })}\n`);
      return;
    }
    case 'UserPromptSubmit': {
      if (!input.prompt?.trim()) return;
      // Asked before the prompt is recorded, so the block never echoes the prompt itself.
      const extra = await promptContext(api, env, user, input.prompt, io);
      await record([{ type: 'message', role: 'user', content: input.prompt }]);
      if (extra) io.stdout(`${JSON.stringify({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: extra } })}\n`);
      return;
    }
    case 'Stop': {
      const reply = input.transcript_path ? lastAssistantReply(input.transcript_path) : undefined;
      if (reply) await record([{ id: `${agent}-${session ?? 'nosession'}-${reply.uuid}`, type: 'message', role: 'assistant', content: reply.text }]);
      return;
    }
    case 'PostToolUse': {
      const content = `${input.tool_name ?? 'tool'}: ${JSON.stringify(input.tool_input ?? {}).slice(0, 4000)}`;
      await record([{ type: 'tool_call', role: 'tool', content, metadata: { tool: input.tool_name ?? null } }]);
      return;
    }
    case 'SessionEnd':
      // A marker (src/domain/routing.ts): stored with the session, skipped at triage.
      await record([
        {
          type: 'session_end',
          role: 'system',
          content: `Session ended${input.reason ? ` (${input.reason})` : ''}.`,
          metadata: { reason: input.reason ?? null },
        },
      ]);
      return;
    default:
      io.stderr(`memloom-hook: unknown hook event "${name}"; expected SessionStart, UserPromptSubmit, Stop, PostToolUse or SessionEnd\n`);
  }
}

/** Default tokens of the per-prompt context block (MEMLOOM_CONTEXT_BUDGET): small, since it comes with every prompt. */
const DEFAULT_PROMPT_BUDGET = 800;

/**
 * The context for a prompt: with MEMLOOM_HOOK_RECALL=n the n best memories (as before the context
 * block existed); otherwise the context block (POST /v1/context) within MEMLOOM_CONTEXT_BUDGET
 * tokens (0: off), when something matches. Only for a configured user: without one the block
 * would draw on every user's memory. A failure is a line on stderr and no context.
 */
async function promptContext(
  api: ReturnType<typeof createApi>,
  env: HookEnv,
  user: string | undefined,
  prompt: string,
  io: HookIo,
): Promise<string | undefined> {
  const query = prompt.slice(0, 10_000);
  const n = Number(env.MEMLOOM_HOOK_RECALL ?? 0);
  if (Number.isInteger(n) && n > 0) {
    const found = await api
      .recall({ query, user_id: user, limit: Math.min(n, 20), mode: 'memories' })
      .catch((err: Error) => void io.stderr(`memloom-hook: recall failed: ${err.message}\n`));
    if (!found || found.results.length === 0) return undefined;
    return `Relevant memories (memloom):\n${found.results.map((r) => `- [${r.kind ?? r.type}, ${resultDate(r)}] ${r.content}`).join('\n')}`;
  }
  const budget = Number(env.MEMLOOM_CONTEXT_BUDGET || DEFAULT_PROMPT_BUDGET);
  if (!user || !Number.isInteger(budget) || budget <= 0) return undefined;
  const block = await api
    .context({ query, user_id: user, dataset: env.MEMLOOM_DATASET || undefined, budget_tokens: Math.min(8000, Math.max(50, budget)) })
    .catch((err: Error) => void io.stderr(`memloom-hook: context unavailable: ${err.message}\n`));
  if (!block || block.match === 'none' || !block.context) return undefined;
  return `# Memory for this prompt (memloom, match ${block.match})\n\n${block.context}`;
}

async function workingMemory(api: ReturnType<typeof createApi>, env: HookEnv, user: string | undefined, io: HookIo): Promise<string | null> {
  try {
    return await api.workingMemory(user);
  } catch (err) {
    // The API is away: memloom also writes the digest to a file for exactly this passive load.
    if (!env.MEMLOOM_HOME) {
      io.stderr(`memloom-hook: working memory unavailable: ${(err as Error).message}\n`);
      return null;
    }
    const tenant = env.MEMLOOM_TENANT && env.MEMLOOM_TENANT !== 'default' ? [env.MEMLOOM_TENANT] : [];
    const file = path.resolve(
      env.MEMLOOM_HOME,
      'working-memory',
      ...tenant,
      briefingFileName(user ?? '', (s) => createHash('sha256').update(s).digest('hex').slice(0, 16)),
    );
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return null;
    }
  }
}

/** One append (O_APPEND, one write) per hook run, fsync'd: lines never interleave and survive a crash. */
async function store(events: MemloomEvent[], env: HookEnv, session: string | undefined, io: HookIo, api: ReturnType<typeof createApi>): Promise<void> {
  const stamped = events.map((e) => ({ ...e, occurred_at: new Date().toISOString() }));
  if (env.EVENTS_DIR) {
    const tenant = env.MEMLOOM_TENANT && env.MEMLOOM_TENANT !== 'default' ? [env.MEMLOOM_TENANT] : [];
    const dir = path.resolve(env.EVENTS_DIR, ...tenant, 'agent-hook');
    const file = path.join(dir, `${(session ?? 'no-session').replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 120)}.jsonl`);
    try {
      mkdirSync(dir, { recursive: true });
      const fd = openSync(file, 'a');
      try {
        const buf = Buffer.from(stamped.map((e) => `${JSON.stringify(e)}\n`).join(''));
        for (let at = 0; at < buf.length; ) at += writeSync(fd, buf, at);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      io.stderr(`memloom-hook: could not append to ${file}: ${(err as Error).message}\n`);
    }
    return;
  }
  try {
    await api.sendEvents(stamped);
  } catch (err) {
    io.stderr(`memloom-hook: event not recorded: ${(err as Error).message}\n`);
  }
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const parts: Buffer[] = [];
  for await (const chunk of process.stdin) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/** Entry point of bin/memloom-hook.js and `memloom hook`. */
export async function main(argv: string[]): Promise<void> {
  try {
    await runHook(argv, {
      stdin: await readStdin(),
      stdout: (s) => void process.stdout.write(s),
      stderr: (s) => void process.stderr.write(s),
      env: process.env,
    });
  } catch (err) {
    process.stderr.write(`memloom-hook: ${(err as Error).message}\n`);
  }
}
