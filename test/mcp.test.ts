import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';

/**
 * The MCP server as an agent uses it: the SDK's own client over stdio (a spawned `memloom mcp`
 * talking to a running memloom over HTTP) and over streamable HTTP at /mcp, against a real
 * memloom with every pipeline stage running. Two tenants (two keys) share the instance.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const TOOLS = ['forget', 'get_context', 'get_working_memory', 'recall', 'remember'];

let m: TestMemloom;
beforeAll(async () => {
  m = await startTestMemloom({
    roles: { api: true, workers: QUEUE_NAMES },
    env: { MEMLOOM_API_KEYS: 'k-mcp-a:alpha,k-mcp-b:beta', BRIEFING_DEBOUNCE_MS: '200' },
  });
});
afterAll(async () => m?.close());

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };
const text = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');
const call = async (c: Client, name: string, args: Record<string, unknown>) => (await c.callTool({ name, arguments: args })) as ToolResult;

/**
 * The checks both transports must pass: every tool listed and called, bad arguments as tool
 * errors. `marker` is a project name inside the remembered sentence (extraction keeps sentences,
 * not parentheses), so each transport's memory is told apart.
 */
async function exerciseTools(c: Client, user: string, marker: string): Promise<void> {
  const { tools } = await c.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
  for (const t of tools) {
    expect(t.description?.length ?? 0).toBeGreaterThan(80);
    expect(t.inputSchema.type).toBe('object');
  }

  // Worded as a plain statement: the explicit type, not the words, makes it a decision.
  const remembered = await call(c, 'remember', {
    content: `PostgreSQL with pgvector is the memory store of the ${marker} project because vectors stay next to the data.`,
    type: 'decision',
    importance: 8,
  });
  expect(remembered.isError).toBeFalsy();
  expect(text(remembered)).toMatch(/^Remembered \(event /);

  const found = await waitFor(
    async () => {
      const r = await call(c, 'recall', { query: 'which memory store did we decide on', mode: 'memories' });
      return !r.isError && text(r).includes(marker) ? r : undefined;
    },
    { timeoutMs: 60_000, what: 'the remembered decision to be recallable' },
  );
  const line = text(found)
    .split('\n')
    .find((l) => l.includes(marker));
  expect(line).toMatch(/\[decision, /);
  const memoryId = /id ([0-9a-f-]{36})\)/.exec(line ?? '')?.[1];
  expect(memoryId).toBeDefined();

  // get_context: the same decision as a current fact in a budgeted block, with its id; nothing for a never-said question.
  const ctx = text(await call(c, 'get_context', { query: 'which memory store did we decide on', budget_tokens: 300 }));
  expect(ctx).toMatch(/^## Current facts\n- \d{4}-\d{2}-\d{2}: /);
  expect(ctx).toContain(`(memory ${memoryId})`);
  expect(ctx).toMatch(/\(match: (strong|weak); \d+ tokens; recall_id /);
  expect(text(await call(c, 'get_context', { query: 'Who is Priya Raman?' }))).toMatch(/^Nothing is stored about this/);

  const wm = await waitFor(
    async () => {
      const t = text(await call(c, 'get_working_memory', {}));
      return t.includes(marker) ? t : undefined;
    },
    { timeoutMs: 60_000, what: 'the working memory to include the decision' },
  );
  expect(wm).toContain('PostgreSQL');
  const resource = await c.readResource({ uri: 'memloom://working-memory' });
  expect(JSON.stringify(resource.contents)).toContain(marker);
  const ofUser = await c.readResource({ uri: `memloom://working-memory/${user}` });
  expect(JSON.stringify(ofUser.contents)).toContain(marker);
  expect((await c.listResources()).resources.map((r) => r.uri)).toContain('memloom://working-memory');

  // Bad arguments: tool errors, and the server keeps answering.
  for (const bad of [
    { name: 'recall', args: { query: '' } },
    { name: 'recall', args: { query: 'x', limit: 'ten' } },
    { name: 'get_context', args: { query: 'x', budget_tokens: 5 } },
    { name: 'remember', args: {} },
    { name: 'forget', args: { session_id: 's', dataset: 'd' } },
    { name: 'forget', args: { id: 'not-a-uuid' } },
    { name: 'forget', args: {} },
  ]) {
    const r = await call(c, bad.name, bad.args);
    expect(r.isError, `${bad.name} ${JSON.stringify(bad.args)}`).toBe(true);
    expect(text(r).length).toBeGreaterThan(5);
  }
  expect((await c.listTools()).tools).toHaveLength(5);

  const forgotten = await call(c, 'forget', { id: memoryId });
  expect(forgotten.isError).toBeFalsy();
  expect(text(forgotten)).toMatch(/^Forgotten: .*1 memories/);
  const again = await call(c, 'forget', { id: memoryId });
  expect(again.isError).toBeFalsy();
  expect(text(again)).toMatch(/^Nothing to forget/);
  const after = await call(c, 'recall', { query: 'which memory store did we decide on', mode: 'memories' });
  expect(text(after)).not.toContain(memoryId);

  // recall's default mode returns chunks: forget takes their ids too, and the event goes with them.
  await call(c, 'remember', { content: `The ${marker} staging cluster is called Heron and runs in Oslo.` });
  const chunkLine = await waitFor(
    async () => {
      const r = await call(c, 'recall', { query: `${marker} staging cluster Heron` });
      return text(r)
        .split('\n')
        .find((l) => l.includes('Heron') && l.startsWith('1. [chunk'));
    },
    { timeoutMs: 60_000, what: 'the remembered note to be recallable as a chunk' },
  );
  const chunkId = /\(id ([0-9a-f-]{36})\)$/.exec(chunkLine)?.[1];
  expect(chunkId).toBeDefined();
  const chunkForgotten = await call(c, 'forget', { id: chunkId });
  expect(chunkForgotten.isError, text(chunkForgotten)).toBeFalsy();
  expect(text(chunkForgotten)).toMatch(/^Forgotten: 1 events, 1 chunks/);
  expect(text(await call(c, 'recall', { query: `${marker} staging cluster Heron` }))).not.toContain('Heron');
  expect(text(await call(c, 'forget', { id: chunkId }))).toMatch(/^Nothing to forget/);
}

describe('MCP over stdio (memloom mcp)', () => {
  let client: Client;
  let transport: StdioClientTransport;
  beforeAll(async () => {
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(ROOT, 'bin/memloom.js'), 'mcp'],
      cwd: ROOT,
      env: {
        ...(process.env as Record<string, string>),
        MEMLOOM_URL: m.url,
        MEMLOOM_API_KEY: 'k-mcp-a',
        MEMLOOM_TENANT: 'alpha',
        MEMLOOM_USER_ID: 'u-stdio',
        EVENTS_DIR: m.eventsDir,
        LOG_LEVEL: 'warn',
        DATABASE_URL: '',
      },
      stderr: 'pipe',
    });
    client = new Client({ name: 'memloom-test', version: '1.0.0' });
    await client.connect(transport);
  });
  afterAll(async () => client?.close());

  it('lists and calls every tool against a running memloom; bad arguments are tool errors', async () => {
    await exerciseTools(client, 'u-stdio', 'Heron');
  });

  it('the server announces itself and its instructions', async () => {
    expect(client.getServerVersion()?.name).toBe('memloom');
    // With a current build this is the bundle (scripts/build-bundle.mjs), which finds package.json from dist/server/apps/cli.
    const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(client.getServerVersion()?.version).toBe(pkg.version);
    expect(client.getInstructions()).toMatch(/long-term memory/);
  });
});

describe('MCP over streamable HTTP (/mcp)', () => {
  const connect = async (key: string | undefined, user: string) => {
    const c = new Client({ name: 'memloom-test', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${m.url}/mcp?user_id=${user}`), { requestInit: { headers: key ? { authorization: `Bearer ${key}` } : {} } }),
    );
    return c;
  };

  it('lists and calls every tool with the tenant of the key; bad arguments are tool errors', async () => {
    const c = await connect('k-mcp-b', 'u-http');
    try {
      await exerciseTools(c, 'u-http', 'Osprey');
    } finally {
      await c.close();
    }
  });

  it('keeps tenants apart: one key never recalls what another tenant remembered', async () => {
    const a = await connect('k-mcp-a', 'u-shared');
    const b = await connect('k-mcp-b', 'u-shared');
    try {
      await call(a, 'remember', { content: 'The alpha team decided to deploy the ledger service on Fridays (tenant-a-marker).', type: 'decision' });
      await waitFor(async () => text(await call(a, 'recall', { query: 'ledger service deploy day', mode: 'chunks' })).includes('tenant-a-marker'), {
        timeoutMs: 60_000,
        what: 'tenant a to recall its event',
      });
      const other = await call(b, 'recall', { query: 'ledger service deploy day', mode: 'auto' });
      expect(other.isError).toBeFalsy();
      expect(text(other)).not.toContain('tenant-a-marker');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('refuses a request without a valid key, and GET /mcp is not used (stateless)', async () => {
    await expect(connect(undefined, 'u')).rejects.toThrow();
    await expect(connect('wrong-key', 'u')).rejects.toThrow();
    const res = await fetch(`${m.url}/mcp`, { headers: { authorization: 'Bearer k-mcp-a' } });
    expect(res.status).toBe(405);
  });
});
