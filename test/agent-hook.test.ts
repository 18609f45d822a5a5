import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../src/db/pool.js';
import { countTokens } from '../src/domain/tokens.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';
import { ROOT } from './support/process.js';
// @ts-expect-error a plain .mjs script without declarations
import { buildClient } from '../scripts/build-client.mjs';

/**
 * bin/memloom-hook.js driven as Claude Code drives a command hook: one process per hook event,
 * the hook's JSON object on stdin, context read from stdout. memloom runs with its watcher, so
 * events appended to the events directory become memory without any call.
 */
const KEY = 'k-hook';
const SESSION = 'cc-session-1';
const auth = { authorization: `Bearer ${KEY}` };
let m: TestMemloom;
let dir: string;
let transcript: string;

function hook(input: unknown, env: Record<string, string> = {}, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/memloom-hook.js'), ...args], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        MEMLOOM_URL: m.url,
        MEMLOOM_API_KEY: KEY,
        MEMLOOM_TENANT: 'hooks',
        MEMLOOM_USER_ID: 'u-hook',
        EVENTS_DIR: m.eventsDir,
        MEMLOOM_HOME: m.home,
        ...env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(typeof input === 'string' ? input : JSON.stringify(input));
  });
}
const base = () => ({ session_id: SESSION, transcript_path: transcript, cwd: dir });
const context = (stdout: string) => (JSON.parse(stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
const recallChunks = async (query: string) =>
  (
    (await postJson(`${m.url}/v1/recall`, { query, mode: 'chunks', user_id: 'u-hook', session_id: SESSION }, auth)).body.results as Array<{ content: string }>
  ).map((r) => r.content);

beforeAll(async () => {
  buildClient(); // the hook starts from the compiled build, as after npm ci
  dir = await mkdtemp(path.join(os.tmpdir(), 'memloom-hook-'));
  transcript = path.join(dir, 'transcript.jsonl');
  m = await startTestMemloom({
    roles: { api: true, watcher: true, workers: QUEUE_NAMES },
    env: { MEMLOOM_API_KEYS: `${KEY}:hooks`, BRIEFING_DEBOUNCE_MS: '200' },
  });
  await postJson(
    `${m.url}/v1/events`,
    { user_id: 'u-hook', session_id: 'earlier', type: 'decision', content: 'We decided to use PostgreSQL with pgvector for the memory store.' },
    auth,
  );
  await waitFor(async () => (await fetch(`${m.url}/v1/working-memory?user_id=u-hook`, { headers: auth })).status === 200, {
    timeoutMs: 60_000,
    what: 'the working memory',
  });
});
afterAll(async () => {
  await m?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('agent hook (Claude Code command hooks)', () => {
  it('SessionStart loads the working memory as additional context, from the API or else from its file', async () => {
    const r = await hook({ ...base(), hook_event_name: 'SessionStart', source: 'startup' });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(context(r.stdout)).toContain('PostgreSQL');
    // The API is down: the file memloom writes under MEMLOOM_HOME serves the same digest.
    const offline = await hook({ ...base(), hook_event_name: 'SessionStart', source: 'resume' }, { MEMLOOM_URL: 'http://127.0.0.1:9' });
    expect(offline.code).toBe(0);
    expect(context(offline.stdout)).toContain('PostgreSQL');
  });

  it('each turn appends to the events directory, and the watcher turns it into recallable memory', async () => {
    const prompt = await hook({ ...base(), hook_event_name: 'UserPromptSubmit', prompt: 'Our staging cluster is called Bluebird and runs in Frankfurt.' });
    expect(prompt).toMatchObject({ code: 0, stdout: '' });
    await writeFile(
      transcript,
      `${[
        { type: 'user', uuid: 'u1', message: { role: 'user', content: 'Our staging cluster is called Bluebird and runs in Frankfurt.' } },
        {
          type: 'assistant',
          uuid: 'a1',
          message: {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Noted: staging runs on the Bluebird cluster in Frankfurt.' },
              { type: 'tool_use', id: 't', name: 'Read', input: {} },
            ],
          },
        },
        { type: 'user', uuid: 'u2', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] } },
        { type: 'assistant', uuid: 'a2', message: { role: 'assistant', content: [{ type: 'text', text: 'I will deploy to Bluebird after the tests pass.' }] } },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n')}\n`,
    );
    // Stop can fire more than once for a turn: the reply is keyed by its transcript uuid.
    expect((await hook({ ...base(), hook_event_name: 'Stop', stop_hook_active: false })).code).toBe(0);
    expect((await hook({ ...base(), hook_event_name: 'Stop', stop_hook_active: true })).code).toBe(0);
    expect((await hook({ ...base(), hook_event_name: 'SessionEnd', reason: 'exit' })).code).toBe(0);

    const file = path.join(m.eventsDir, 'hooks', 'agent-hook', `${SESSION}.jsonl`);
    const lines = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.type, l.role])).toEqual([
      ['message', 'user'],
      ['message', 'assistant'],
      ['message', 'assistant'],
      ['session_end', 'system'],
    ]);
    expect(lines[1].content).toBe('Noted: staging runs on the Bluebird cluster in Frankfurt.\n\nI will deploy to Bluebird after the tests pass.');
    expect(lines[1].id).toBe(lines[2].id);
    expect(lines.every((l) => l.user_id === 'u-hook' && l.session_id === SESSION && l.agent_id === 'claude-code')).toBe(true);

    const found = await waitFor(
      async () => {
        const c = await recallChunks('Bluebird staging cluster');
        return c.some((x) => x.includes('called Bluebird')) && c.some((x) => x.includes('deploy to Bluebird')) ? c : undefined;
      },
      { timeoutMs: 60_000, what: 'the watcher to ingest the hook events' },
    );
    expect(found.filter((x) => x.includes('deploy to Bluebird'))).toHaveLength(1);
    // Stored in the key's tenant, the assistant reply once: the earlier decision + prompt, reply, session end. The
    // watcher reads the file in order, so once the last line (session_end) is stored every line before it is too.
    const events = await waitFor(
      async () => {
        const n = (await getJson(`${m.url}/v1/stats`, auth)).body.objects.events as number;
        return n >= 4 ? n : undefined;
      },
      { timeoutMs: 60_000, what: 'the session_end line to be stored' },
    );
    expect(events).toBe(1 + 3);
    // The session end is kept as the session's metadata, not as something to recall.
    await waitFor(async () => (await getJson(`${m.url}/v1/stats`, auth)).body.pending_events === 0, { timeoutMs: 60_000, what: 'processing' });
    expect((await recallChunks('session ended exit')).filter((c) => c.includes('Session ended'))).toEqual([]);
    const marker = await withTenant(m.deps.db, 'hooks', async (tx) => {
      const { rows } = await tx.query<{ status: string; skip_reason: string; metadata: unknown; chunks: number }>(
        `SELECT status, skip_reason, metadata, (SELECT count(*)::int FROM chunks c WHERE c.event_id = e.id) AS chunks FROM events e WHERE type = 'session_end'`,
      );
      return rows;
    });
    expect(marker).toEqual([{ status: 'skipped', skip_reason: 'marker', metadata: { reason: 'exit' }, chunks: 0 }]);
  });

  it('before each prompt adds the context block for it (MEMLOOM_CONTEXT_BUDGET tokens), and nothing when nothing matches', async () => {
    const prompt = { ...base(), session_id: 'ctx-session', hook_event_name: 'UserPromptSubmit', prompt: 'Which database did we pick for the memory store?' };
    const r = await hook(prompt);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
    const block = context(r.stdout);
    expect(block).toMatch(
      /^# Memory for this prompt \(memloom, match (strong|weak)\)\n\n## Current facts\n- \d{4}-\d{2}-\d{2}: .*PostgreSQL.*\(memory [0-9a-f-]{36}\)/,
    );
    expect(countTokens(block.slice(block.indexOf('## ')))).toBeLessThanOrEqual(800);
    const small = context((await hook(prompt, { MEMLOOM_CONTEXT_BUDGET: '60' })).stdout);
    expect(countTokens(small.slice(small.indexOf('## ')))).toBeLessThanOrEqual(60);
    expect(await hook(prompt, { MEMLOOM_CONTEXT_BUDGET: '0' })).toMatchObject({ code: 0, stdout: '' });
    const never = await hook({ ...prompt, prompt: 'Who is Priya Raman?' });
    expect(never).toMatchObject({ code: 0, stdout: '', stderr: '' });
    // memloom away: the prompt goes without context, the agent goes on.
    const away = await hook(prompt, { MEMLOOM_URL: 'http://127.0.0.1:9' });
    expect(away).toMatchObject({ code: 0, stdout: '' });
    expect(away.stderr).toMatch(/context unavailable/);
  });

  it('with MEMLOOM_HOOK_RECALL, a prompt also brings the best memories for it as context', async () => {
    const r = await hook(
      { ...base(), hook_event_name: 'UserPromptSubmit', prompt: 'Which database did we pick for the memory store?' },
      { MEMLOOM_HOOK_RECALL: '3' },
    );
    expect(r.code).toBe(0);
    expect(context(r.stdout)).toMatch(/Relevant memories \(memloom\):\n- \[decision, .*PostgreSQL/);
  });

  it('never fails the agent: bad input and an unreachable memloom are a line on stderr, exit 0', async () => {
    const bad = await hook('not json');
    expect(bad).toMatchObject({ code: 0, stdout: '' });
    expect(bad.stderr).toContain('stdin is not JSON');
    const away = await hook(
      { ...base(), hook_event_name: 'UserPromptSubmit', prompt: 'hello there, remember me' },
      { EVENTS_DIR: '', MEMLOOM_URL: 'http://127.0.0.1:9' },
    );
    expect(away.code).toBe(0);
    expect(away.stderr).toMatch(/event not recorded/);
    const unknown = await hook({ hook_event_name: 'Notification' });
    expect(unknown.code).toBe(0);
    expect(unknown.stderr).toContain('unknown hook event');
  });

  it('without MEMLOOM_USER_ID, says so on stderr once per session and still records', async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'memloom-hook-tmp-'));
    const unwatched = await mkdtemp(path.join(os.tmpdir(), 'memloom-hook-events-'));
    try {
      const env = { MEMLOOM_USER_ID: '', TMPDIR: tmp, EVENTS_DIR: unwatched };
      const warning = /^memloom-hook: MEMLOOM_USER_ID is not set: events are recorded without a user/;
      const start = await hook({ session_id: 'anon-1', hook_event_name: 'SessionStart', source: 'startup' }, env);
      expect(start.code).toBe(0);
      expect(start.stderr).toMatch(warning);
      expect(start.stderr.trim().split('\n')).toHaveLength(1);
      const prompt = await hook({ session_id: 'anon-1', hook_event_name: 'UserPromptSubmit', prompt: 'Deploy Heron to Oslo on Monday.' }, env);
      expect(prompt).toMatchObject({ code: 0, stderr: '' });
      const recorded = JSON.parse(await readFile(path.join(unwatched, 'hooks', 'agent-hook', 'anon-1.jsonl'), 'utf8'));
      expect(recorded).toMatchObject({ content: 'Deploy Heron to Oslo on Monday.' });
      expect(recorded.user_id).toBeUndefined();
      // Another session is told again; a configured user is never warned.
      expect((await hook({ session_id: 'anon-2', hook_event_name: 'UserPromptSubmit', prompt: 'Hello there.' }, env)).stderr).toMatch(warning);
      const withUser = await hook(
        { session_id: 'anon-3', hook_event_name: 'UserPromptSubmit', prompt: 'Hello again.' },
        { TMPDIR: tmp, EVENTS_DIR: unwatched },
      );
      expect(withUser.stderr).toBe('');
    } finally {
      await rm(tmp, { recursive: true, force: true });
      await rm(unwatched, { recursive: true, force: true });
    }
  });
});
