import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemloom, type MemloomClient } from '../apps/client/index.js';
import { withTenant } from '../src/db/pool.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';

/**
 * A client made with `defaults: { user_id, … }` is that user's client: every call that takes a
 * scope and names none gets the defaults (events: all four fields; reads, exports and a session's
 * forget: user and dataset). Two users share a session id and words, so a call that forgot its
 * scope would find, list, export or forget the other user's memory.
 */
let m: TestMemloom;
let eventsDir: string;
let alice: MemloomClient;
let admin: MemloomClient;

beforeAll(async () => {
  m = await startTestMemloom({ roles: { api: true, workers: QUEUE_NAMES }, env: { BRIEFING_DEBOUNCE_MS: '200' } });
  eventsDir = await mkdtemp(path.join(os.tmpdir(), 'memloom-client-defaults-'));
  alice = createMemloom({ url: m.url, eventsDir, flushOnExit: false, defaults: { user_id: 'alice', agent_id: 'alice-agent', dataset: 'team-a' } });
  admin = createMemloom({ url: m.url, eventsDir, flushOnExit: false });
  alice.event({ session_id: 's-1', type: 'decision', content: 'We decided to write the parser in Rust for speed.' });
  await alice.flush();
  await alice.sendEvents([{ session_id: 's-1', content: 'I prefer tabs over spaces in the parser code.' }]);
  await alice.sendEvents({ session_id: 's-2', type: 'decision', content: 'We decided to ship the parser on Fridays.' });
  await admin.sendEvents([
    { user_id: 'bob', session_id: 's-1', dataset: 'team-a', type: 'decision', content: 'We decided to write the parser in Go for simplicity.' },
    { user_id: 'bob', session_id: 's-1', dataset: 'team-a', content: 'I prefer spaces over tabs in the parser code.' },
  ]);
  await waitFor(async () => (await admin.serverStats()).pending_events === 0, { timeoutMs: 120_000, what: 'processing' });
});
afterAll(async () => {
  await alice?.close();
  await admin?.close();
  await m?.close();
  await rm(eventsDir, { recursive: true, force: true });
});

const stored = () =>
  withTenant(m.deps.db, 'default', async (tx) => {
    const { rows } = await tx.query<{ content: string; user_id: string | null; agent_id: string | null; dataset: string }>(
      'SELECT content, user_id, agent_id, dataset FROM events ORDER BY seq',
    );
    return rows;
  });

describe('a client with defaults', () => {
  it('stores event() and sendEvents() events under the default user, agent and dataset', async () => {
    const mine = (await stored()).filter((e) => !e.content.includes('Go') && !e.content.includes('spaces over'));
    expect(mine).toHaveLength(3);
    for (const e of mine) expect(e).toMatchObject({ user_id: 'alice', agent_id: 'alice-agent', dataset: 'team-a' });
  });

  it('recalls only its user\u2019s memory when the request names no user, in every mode', async () => {
    for (const mode of ['chunks', 'memories', 'auto'] as const) {
      const everyone = await admin.recall({ query: 'which language for the parser', mode });
      expect(
        everyone.results.some((r) => r.content.includes('Go')),
        `${mode}: the query does match bob's memory`,
      ).toBe(true);
      const answer = await alice.recall({ query: 'which language for the parser', mode });
      expect(answer.results.length, mode).toBeGreaterThan(0);
      expect(
        answer.results.filter((r) => r.content.includes('Go') || r.content.includes('spaces over')),
        mode,
      ).toEqual([]);
    }
    // A user named in the call wins over the default.
    const bobs = await alice.recall({ query: 'which language for the parser', user_id: 'bob', mode: 'chunks' });
    expect(bobs.results.some((r) => r.content.includes('Go'))).toBe(true);
  });

  it('builds the context block from its user\u2019s memory only when the request names no user', async () => {
    const everyone = await admin.context({ query: 'which language for the parser' });
    expect(
      everyone.items.some((i) => i.text.includes('Go')),
      "the query does match bob's memory",
    ).toBe(true);
    const mine = await alice.context({ query: 'which language for the parser', budget_tokens: 2000 });
    expect(mine.match).not.toBe('none');
    expect(mine.items.length).toBeGreaterThan(0);
    expect(mine.items.filter((i) => i.text.includes('Go') || i.text.includes('spaces over'))).toEqual([]);
    expect(mine.context).toContain('Rust');
    expect(mine.context).not.toContain('Go for simplicity');
    const bobs = await alice.context({ query: 'which language for the parser', user_id: 'bob' });
    expect(bobs.items.some((i) => i.text.includes('Go'))).toBe(true);
  });

  it('lists, exports and reads the working memory of its user', async () => {
    const all = await admin.memories.list({ limit: 100 });
    expect(new Set(all.memories.map((x) => x.user_id))).toEqual(new Set(['alice', 'bob']));
    const page = await alice.memories.list({ limit: 100 });
    expect(page.memories.length).toBeGreaterThan(0);
    expect(new Set(page.memories.map((x) => x.user_id))).toEqual(new Set(['alice']));

    const lines = (await new Response(await alice.exportStream()).text())
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { record: string; user_id?: string | null });
    const events = lines.filter((l) => l.record === 'event');
    expect(events).toHaveLength(3);
    expect(events.every((e) => e.user_id === 'alice')).toBe(true);

    const md = await waitFor(() => alice.workingMemory(), { timeoutMs: 60_000, what: 'alice\u2019s working memory' });
    expect(md).toMatch(/^# Working memory — alice\n/);
    expect(md).toBe(await admin.workingMemory('alice'));
  });

  it('forgets its user\u2019s session when forget() names only the session', async () => {
    // Two users have a session "s-1": without the default user this is SESSION_AMBIGUOUS.
    await expect(admin.forget({ session_id: 's-1' })).rejects.toMatchObject({ code: 'SESSION_AMBIGUOUS' });
    const f = await alice.forget({ session_id: 's-1' });
    expect(f.removed.events).toBe(2);
    const left = await stored();
    expect(left.filter((e) => e.user_id === 'bob')).toHaveLength(2);
    expect(left.filter((e) => e.user_id === 'alice').map((e) => e.content)).toEqual(['We decided to ship the parser on Fridays.']);
  });
});
