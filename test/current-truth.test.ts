/**
 * Current truth through HTTP with the offline providers (embedded PGlite here, PostgreSQL in the
 * server suite): a changed fact supersedes the old one by event time, in every mode; late
 * arrivals stay history; chains end at their newest value; as_of and include_history read the
 * history; the match floor says "none" for what was never said; PATCH lowers the old evidence;
 * chit-chat makes no memory; an explicit decision type is kept.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLOTS_VERSION, upgradeSlots } from '../src/db/slot-upgrade.js';
import { withTenant } from '../src/db/pool.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { createMemloom } from '../apps/client/index.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';

let m: TestMemloom;
const day = (d: number, h = 10) => new Date(Date.UTC(2026, 2, d, h)).toISOString();

interface Result {
  id: string;
  type: string;
  content: string;
  current: boolean;
  superseded_by?: string;
  status?: string;
  valid_to?: string | null;
}
async function recall(body: Record<string, unknown>): Promise<{ match: string; results: Result[] }> {
  const r = await postJson(`${m.url}/v1/recall`, { limit: 10, ...body });
  expect(r.status).toBe(200);
  return r.body;
}
/** Sends events and waits until everything received is recallable as memory. */
async function send(events: Array<Record<string, unknown>>): Promise<void> {
  expect((await postJson(`${m.url}/v1/events`, { events })).status).toBe(202);
  await waitFor(async () => (await getJson(`${m.url}/v1/stats`)).body.pending_events === 0, { timeoutMs: 120_000, what: 'pipeline idle' });
}
const rows = <T>(text: string, params: unknown[] = []) => withTenant(m.deps.db, 'default', async (tx) => (await tx.query(text, params)).rows as T[]);
const memoriesOf = (user: string) =>
  rows<{ id: string; kind: string; status: string; content: string; superseded_by: string | null; version: number }>(
    'SELECT id, kind, status, content, superseded_by, version FROM memories WHERE user_id = $1 ORDER BY valid_from, created_at',
    [user],
  );

beforeAll(async () => {
  m = await startTestMemloom({ roles: { workers: QUEUE_NAMES } });
  const msg = (user: string, session: string, at: string, content: string, extra: Record<string, unknown> = {}) => ({
    user_id: user,
    session_id: session,
    occurred_at: at,
    role: 'user',
    content,
    ...extra,
  });
  // Round 1: the first values, with small talk around them.
  await send([
    msg('dana', 'd1', day(2), 'morning! quick one before standup'),
    msg('dana', 'd1', day(2, 11), 'For the desktop app we use Postgres as the local database.'),
    msg('dana', 'd1', day(2, 12), 'The weather is awful today, raining all morning'),
    { ...msg('dana', 'd1', day(2, 13), 'Got it, I will use Neovim-friendly examples.'), role: 'assistant' },
    msg('eli', 'e1', day(2), 'For the desktop app we use MySQL.'),
    msg('cora', 'c1', day(3), 'Our team standup is at 9:30 every day.'),
    msg('gus', 'g1', day(3), 'Every PR needs one approval to merge.'),
    { ...msg('gus', 'g1', day(3, 11), 'Noted: one approval per PR.'), role: 'assistant' },
    msg('gus', 'g1', day(3, 12), 'Can you suggest a checklist for our sprint review?'),
    { ...msg('gus', 'g1', day(3, 13), 'Here is a checklist for your sprint review: demo, metrics, risks.'), role: 'assistant' },
    msg('lou', 'l1', day(20), 'The release is on Friday.'),
    msg('fay', 'f1', day(5), 'The deadline for the beta is December 15, 2026.'),
    { ...msg('dana', 'd1', day(2, 14), 'We will write the API docs in Markdown.'), type: 'decision' },
    msg('tom', 't1', day(2), 'For context, CI runs on our Jenkins box in the server closet.'),
    msg('tara', 'r1', day(2), 'Helix Biotech signed: $48k a year, two-year term.'),
  ]);
  // Round 2: changes, a chain's second value; a later session of Eli says nothing new.
  await send([
    msg('dana', 'd2', day(9), 'We moved the desktop client from Postgres to SQLite, the installer was too big.'),
    msg('cora', 'c2', day(10), 'Standup moved to 10:00.'),
    msg('gus', 'g2', day(10), 'After the outage we changed the rule: PRs need two approvals to merge now.'),
    msg('eli', 'e2', day(9), 'thanks, that helped'),
    msg('tom', 't2', day(9), 'We moved CI to GitHub Actions over the weekend.'),
  ]);
  // Round 3: the chain's third value, and a late arrival: Lou's older statement arrives after the newer one.
  await send([
    msg('cora', 'c3', day(17), 'They moved it again, standup is at 10:15 from this week.'),
    msg('lou', 'l0', day(5), 'The release is on Thursday.'),
    msg('tom', 't3', day(17), 'The bill for hosted runners was brutal, so we went back to Jenkins this week.'),
    msg('tara', 'r3', day(17), "quick sanity check: with Helix going up to $62k a year after they added two labs, I'm at 105% of quota, right?"),
  ]);
  // Round 4: Lou's Thursday said again, from a time it held (between Thursday and Friday): evidence, not a new version.
  await send([msg('lou', 'l2', day(8), 'The release is on Thursday.')]);
}, 400_000);
afterAll(async () => m?.close());

describe('a changed fact supersedes the old one by event time', () => {
  it('puts the new value first in every mode and marks the old evidence as no longer current', async () => {
    for (const mode of ['chunks', 'memories', 'auto']) {
      const { match, results } = await recall({ user_id: 'dana', query: 'Which database does the desktop app use?', mode });
      expect(match, mode).not.toBe('none');
      expect(results[0]?.content, mode).toMatch(/SQLite/);
      const stale = results.find((r) => /Postgres as the local database/.test(r.content));
      if (stale) expect(stale, mode).toMatchObject({ current: false });
    }
    const chunks = (await recall({ user_id: 'dana', query: 'Which database does the desktop app use?', mode: 'chunks', include_weak: true })).results;
    const old = chunks.find((r) => /Postgres as the local database/.test(r.content));
    expect(old).toMatchObject({ current: false, superseded_by: expect.any(String) });
  });

  it('names and shows the times of a memory the same way in recall and in the memory browser', async () => {
    const { results } = await recall({ user_id: 'fay', query: 'When is the beta deadline?', mode: 'memories' });
    const hit = results[0] as Result & Record<string, unknown>;
    expect(hit.content).toMatch(/December 15/);
    expect(hit).toMatchObject({ occurred_at: day(5), event_time: expect.stringMatching(/^2026-12-15/) });
    const listed = (await getJson(`${m.url}/v1/memories?user_id=fay`)).body.memories.find((x: { id: string }) => x.id === hit.id);
    const detail = (await getJson(`${m.url}/v1/memories/${hit.id}`)).body;
    for (const field of ['occurred_at', 'event_time', 'time_precision', 'valid_from', 'valid_to', 'recorded_at']) {
      expect(listed[field], field).toEqual(hit[field]);
      expect(detail[field], field).toEqual(hit[field]);
    }
  });

  it("marks an assistant's acknowledgement of a replaced value as no longer current, and only that", async () => {
    const { results } = await recall({ user_id: 'gus', query: 'How many approvals does a PR need to merge?', mode: 'chunks', include_weak: true, limit: 20 });
    expect(results[0]?.content).toMatch(/two approvals/);
    expect(results.find((r) => r.content === 'Noted: one approval per PR.')).toMatchObject({ current: false, superseded_by: expect.any(String) });
    const other = (await recall({ user_id: 'gus', query: 'sprint review checklist', mode: 'chunks', include_weak: true })).results;
    expect(other.find((r) => /checklist for your sprint review:/.test(r.content))).toMatchObject({ current: true });
  });

  it('keeps each user to their own value', async () => {
    const { results } = await recall({ user_id: 'eli', query: 'Which database does the desktop app use?', mode: 'memories' });
    expect(results[0]?.content).toMatch(/MySQL/);
    expect(results.every((r) => r.current)).toBe(true);
  });

  it('records the change as a decision that supersedes the old fact, with validity and the version chain', async () => {
    const mems = await memoriesOf('dana');
    const oldFact = mems.find((x) => /Postgres as the local database/.test(x.content));
    const change = mems.find((x) => /SQLite/.test(x.content));
    expect(change).toMatchObject({ kind: 'decision', status: 'active' });
    expect(oldFact).toMatchObject({ status: 'superseded', superseded_by: change?.id });
    const detail = (await getJson(`${m.url}/v1/memories/${oldFact?.id}`)).body;
    expect(detail.status).toBe('superseded');
  });

  it('ends a chain at its newest value, and as_of answers what held at a time', async () => {
    const now = await recall({ user_id: 'cora', query: 'When is standup?', mode: 'memories' });
    expect(now.results[0]?.content).toMatch(/10:15/);
    expect(now.results.some((r) => /9:30|10:00/.test(r.content))).toBe(false);
    const between = await recall({ user_id: 'cora', query: 'When is standup?', mode: 'memories', as_of: day(12) });
    expect(between.results[0]?.content).toMatch(/10:00/);
    const before = await recall({ user_id: 'cora', query: 'When is standup?', mode: 'memories', as_of: day(5) });
    expect(before.results[0]?.content).toMatch(/9:30/);
    const history = await recall({ user_id: 'cora', query: 'When is standup?', mode: 'memories', include_history: true });
    expect(history.results[0]?.content).toMatch(/10:15/);
    expect(history.results.filter((r) => !r.current).map((r) => r.content)).toEqual(
      expect.arrayContaining([expect.stringMatching(/9:30/), expect.stringMatching(/10:00/)]),
    );
  });

  it('keeps a late-arriving older statement as history, placed before the value that replaced it', async () => {
    const mems = await memoriesOf('lou');
    const thu = mems.find((x) => /Thursday/.test(x.content));
    const fri = mems.find((x) => /Friday/.test(x.content));
    expect(fri?.status).toBe('active');
    expect(thu).toMatchObject({ status: 'superseded', superseded_by: fri?.id });
    // Numbered by their place in the chain, not by arrival: Thursday (stored last) is version 1.
    expect([thu?.version, fri?.version]).toEqual([1, 2]);
    const { results } = await recall({ user_id: 'lou', query: 'What day is the release?', mode: 'memories' });
    expect(results[0]?.content).toMatch(/Friday/);
    const then = await recall({ user_id: 'lou', query: 'What day is the release?', mode: 'memories', as_of: day(10) });
    expect(then.results[0]?.content).toMatch(/Thursday/);
  });

  it('takes a late restatement of the value that held at its time as evidence for that version, not a copy of it', async () => {
    const thursdays = (await memoriesOf('lou')).filter((x) => /Thursday/.test(x.content));
    expect(thursdays).toHaveLength(1);
    const detail = (await getJson(`${m.url}/v1/memories/${thursdays[0]?.id}`)).body;
    expect(detail.provenance.events.map((e: { session_id: string }) => e.session_id).sort()).toEqual(['l0', 'l2']);
  });
});

describe('values changed in other words', () => {
  it('goes back to a former value: "went back to Jenkins" replaces GitHub Actions, which replaced Jenkins', async () => {
    const mems = await memoriesOf('tom');
    const gha = mems.find((x) => /GitHub Actions/.test(x.content));
    const back = mems.find((x) => /went back to Jenkins/.test(x.content));
    expect(back?.status).toBe('active');
    expect(gha).toMatchObject({ status: 'superseded', superseded_by: back?.id });
    for (const mode of ['chunks', 'memories', 'auto']) {
      const { results } = await recall({ user_id: 'tom', query: 'Where does our CI run now?', mode });
      expect(results[0]?.content, mode).toMatch(/back to Jenkins/);
    }
  });

  it('ranks the newer of two statements giving different amounts of the same thing first, and marks the older', async () => {
    const { results } = await recall({ user_id: 'tara', query: 'How much is the Helix account worth per year?', mode: 'chunks', include_weak: true });
    expect(results[0]?.content).toMatch(/\$62k/);
    expect(results.find((r) => /\$48k/.test(r.content))).toMatchObject({ current: false, superseded_by: results[0]?.id });
    // A question about the past keeps the older amount where it ranks.
    const then = await recall({ user_id: 'tara', query: 'How much was the Helix account worth when it signed?', mode: 'chunks', include_weak: true });
    expect(then.results.find((r) => /\$48k/.test(r.content))?.current).toBe(true);
  });
});

describe('the match floor', () => {
  it('answers match "none" and no results for something never said, and "weak" results on request', async () => {
    for (const mode of ['chunks', 'memories', 'auto', 'graph']) {
      const r = await recall({ user_id: 'dana', query: 'Who is Priya?', mode });
      expect(r, mode).toMatchObject({ match: 'none', results: [] });
    }
    const weak = await recall({ user_id: 'dana', query: 'Who is Priya?', include_weak: true });
    expect(weak.match).toBe('none');
    expect(weak.results.length).toBeGreaterThan(0);
  });

  it('answers the quick start: a fresh chunk naming a value answers a question about its category, before any extraction', async () => {
    const r = await postJson(`${m.url}/v1/events?wait=searchable`, {
      user_id: 'quick',
      session_id: 's1',
      content: 'We decided to use PostgreSQL with pgvector for memory.',
    });
    expect(r.body.searchable).toBe(true);
    const answer = await recall({ user_id: 'quick', query: 'which database did we pick?' });
    expect(answer.match).not.toBe('none');
    expect(answer.results[0]?.content).toMatch(/PostgreSQL/);
  });

  it('finds a turn said in other words (src/domain/synonyms.ts), and still answers none for what was never said', async () => {
    const r = await postJson(`${m.url}/v1/events?wait=searchable`, {
      user_id: 'pat',
      session_id: 's1',
      content: 'the neighbor said trash and recycling get picked up Thursday mornings, so bins out Wednesday night',
    });
    expect(r.body.searchable).toBe(true);
    const answer = await recall({ user_id: 'pat', query: 'When does the garbage truck come by?' });
    expect(answer.match).not.toBe('none');
    expect(answer.results[0]?.content).toMatch(/Thursday/);
    expect(await recall({ user_id: 'pat', query: "Who's our plumber?" })).toMatchObject({ match: 'none', results: [] });
  });

  it("puts the user's own statement of a time above an assistant's greeting and a value of no time", async () => {
    const turn = (h: number, role: string, content: string) => ({ user_id: 'ivy', session_id: 'i1', occurred_at: day(5, h), role, content });
    await send([
      turn(9, 'user', 'hi! I run the platform group, just getting started'),
      turn(10, 'assistant', 'Hi Ivy! Great to meet you.'),
      turn(11, 'user', 'our standup is at 10:15, twenty minutes, no slides'),
      turn(12, 'assistant', 'Will do.'),
    ]);
    // "meet" is in the greeting; the standup turn answers in other words (check-in) and gives a time.
    const answer = await recall({ user_id: 'ivy', query: 'what time do we meet for the daily check-in?' });
    expect(answer.results[0]?.content).toMatch(/10:15/);
    // Asked what the assistant said, its turns are first-hand again.
    const said = await recall({ user_id: 'ivy', query: 'did you say it was great to meet me?' });
    expect(said.results[0]?.content).toMatch(/meet you/);
  });

  it('answers strong when the question is plainly stored', async () => {
    expect((await recall({ user_id: 'dana', query: 'desktop app database' })).match).toBe('strong');
  });
});

describe('kinds and small talk', () => {
  it('makes no memory of greetings, weather talk, thanks or assistant acknowledgements; their chunks stay as evidence', async () => {
    const contents = [...(await memoriesOf('dana')), ...(await memoriesOf('eli'))].map((x) => x.content).join('\n');
    expect(contents).not.toMatch(/weather|morning|thanks|Neovim|helped/i);
    const [chunks] = await rows<{ n: number }>(`SELECT count(*)::int AS n FROM chunks WHERE user_id = 'dana' AND content ~ 'weather'`);
    expect(chunks?.n).toBe(1);
  });

  it('keeps the kind an event sends: type "decision" makes a decision, over HTTP and from the client', async () => {
    const docs = (await memoriesOf('dana')).find((x) => /Markdown/.test(x.content));
    expect(docs?.kind).toBe('decision');
    const client = createMemloom({ url: m.url, eventsDir: `${m.home}/client-spill`, flushOnExit: false, defaults: { user_id: 'kim' } });
    await client.sendEvents([{ session_id: 'k1', type: 'decision', content: 'The billing service runs on Kubernetes.' }]);
    await waitFor(async () => (await getJson(`${m.url}/v1/stats`)).body.pending_events === 0, { timeoutMs: 120_000, what: 'pipeline idle' });
    expect((await memoriesOf('kim')).map((x) => x.kind)).toEqual(['decision']);
  });
});

describe('a correction lowers the old evidence', () => {
  it('ranks the corrected memory above the raw turn it corrects, in chunks and auto', async () => {
    const before = await recall({ user_id: 'eli', query: 'Which database does the desktop app use?', mode: 'memories' });
    const target = before.results[0] as Result;
    const res = await fetch(`${m.url}/v1/memories/${target.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'For the desktop app we use MariaDB.' }),
    });
    expect(res.status).toBe(200);
    for (const mode of ['chunks', 'auto']) {
      const { results } = await recall({ user_id: 'eli', query: 'Which database does the desktop app use?', mode });
      expect(results[0]?.content, mode).toMatch(/MariaDB/);
      const raw = results.find((r) => r.type === 'chunk' && /MySQL/.test(r.content));
      if (raw) expect(raw.current, mode).toBe(false);
    }
  });
});

describe('memories written before slots', () => {
  it('get their slot, keys and key words at startup, once', async () => {
    await rows(`UPDATE memories SET slot = NULL, slot_keys = NULL WHERE user_id = 'cora'`);
    const owner = new pg.Client({ connectionString: m.deps.dbUrl });
    await owner.connect();
    try {
      await owner.query(`UPDATE memloom_settings SET value = 'before slots' WHERE name = 'slots'`);
      expect((await upgradeSlots(owner)).read).toBeGreaterThanOrEqual(3);
      expect((await owner.query(`SELECT value FROM memloom_settings WHERE name = 'slots'`)).rows[0]?.value).toBe(SLOTS_VERSION);
      expect(await upgradeSlots(owner)).toEqual({ read: 0, restored: 0 });
    } finally {
      await owner.end();
    }
    const after = await rows<{ slot_keys: string[] | null }>(`SELECT slot_keys FROM memories WHERE user_id = 'cora' AND content ~* 'standup'`);
    expect(after.length).toBeGreaterThanOrEqual(3);
    for (const r of after) expect(r.slot_keys).toContain('a:standup');
  });
  it('resumes an interrupted upgrade after the last batch it committed', async () => {
    await rows(`UPDATE memories SET slot = NULL, slot_keys = NULL WHERE user_id = 'cora'`);
    const owner = new pg.Client({ connectionString: m.deps.dbUrl });
    await owner.connect();
    const set = (name: string, value: string) =>
      owner.query(`INSERT INTO memloom_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`, [name, value]);
    try {
      // Stopped after the last batch of the only tenant, before the version was written: the
      // restart reads nothing again.
      await set('slots', '1');
      await set('slots_progress', JSON.stringify({ version: SLOTS_VERSION, tenant: 'default', step: 'unlink', after: 'ffffffff-ffff-ffff-ffff-ffffffffffff' }));
      expect(await upgradeSlots(owner)).toEqual({ read: 0, restored: 0 });
      // Done, the progress is cleared: the next upgrade reads everything, and the standup's
      // change (9:30 → 10:00) is one the reader still makes.
      await set('slots', '1');
      expect(await upgradeSlots(owner)).toEqual({ read: 3, restored: 0 });
    } finally {
      await owner.end();
    }
  });
});

describe('numbered notes of one user', () => {
  it('stay distinct memories: a heading number or a service number is no new value of one slot', async () => {
    // Out of order on purpose: a late arrival would be placed in a chain if these shared a slot.
    const ks = Array.from({ length: 45 }, (_, i) => (i * 17) % 45);
    await send(
      ks.map((k) => ({
        user_id: 'nora',
        session_id: `n${k % 4}`,
        occurred_at: day(10 + (k % 9), 8 + Math.floor(k / 9)),
        role: 'user',
        content: k % 3 === 0 ? `第${k}条：我们决定把服务${k}的数据库迁移到PostgreSQL` : `Note ${k}: we decided to keep service ${k} on Redis and BullMQ`,
      })),
    );
    const mems = await memoriesOf('nora');
    expect(mems.filter((x) => x.status !== 'active')).toEqual([]);
    expect(mems).toHaveLength(45);
    expect(new Set(mems.map((x) => x.content.match(/\d+/)?.[0])).size).toBe(45);
  });

  it('are made current again when an older reader had chained them, and only those supersessions are undone', async () => {
    // What the reader before SLOTS_VERSION 2 did to these notes: every note a new value of "note",
    // each superseding the one before, with the relation extraction writes.
    const notes = (await memoriesOf('nora')).slice(0, 12);
    const oldSlot = (n: string) => ({
      about: ['note'],
      value: [n],
      kind: 'number',
      replaces: [],
      change: false,
      negated: false,
      planned: false,
      names: [],
      mentions: [n],
      single: true,
    });
    for (const [i, note] of notes.entries()) {
      const next = notes[i + 1];
      await rows(`UPDATE memories SET slot = $2::jsonb, slot_keys = ARRAY['a:note'] WHERE id = $1`, [
        note.id,
        JSON.stringify(oldSlot(note.content.match(/\d+/)?.[0] ?? '')),
      ]);
      if (!next) continue;
      await rows(
        `UPDATE memories o SET status = 'superseded', superseded_by = n.id, superseded_at = n.valid_from, version = $3 FROM memories n WHERE o.id = $1 AND n.id = $2`,
        [note.id, next.id, i + 1],
      );
      await rows(`INSERT INTO memory_relations (from_memory_id, to_memory_id, relation, is_progression) VALUES ($1, $2, 'replaces', true)`, [next.id, note.id]);
    }
    await rows(`UPDATE memories SET version = 12 WHERE id = $1`, [notes[11]?.id]);
    const supersededBefore = await rows<{ id: string }>(`SELECT id FROM memories WHERE status = 'superseded' AND user_id <> 'nora'`);
    expect(supersededBefore.length).toBeGreaterThan(0); // dana's database, cora's standup, eli's corrected memory…
    expect((await memoriesOf('nora')).filter((x) => x.status === 'active')).toHaveLength(45 - 11);

    const owner = new pg.Client({ connectionString: m.deps.dbUrl });
    await owner.connect();
    try {
      await owner.query(`UPDATE memloom_settings SET value = '1' WHERE name = 'slots'`);
      const done = await upgradeSlots(owner);
      expect(done.restored).toBe(11);
      expect(done.read).toBeGreaterThanOrEqual(12);
      expect(await upgradeSlots(owner)).toEqual({ read: 0, restored: 0 });
    } finally {
      await owner.end();
    }
    const after = await memoriesOf('nora');
    expect(after.filter((x) => x.status !== 'active')).toEqual([]);
    expect(new Set(after.map((x) => x.version))).toEqual(new Set([1]));
    const ids = notes.map((x) => x.id);
    expect(await rows(`SELECT id FROM memory_relations WHERE from_memory_id = ANY($1::uuid[]) OR to_memory_id = ANY($1::uuid[])`, [ids])).toEqual([]);
    const keys = await rows<{ slot_keys: string[] | null }>(`SELECT slot_keys FROM memories WHERE id = ANY($1::uuid[])`, [ids]);
    for (const k of keys) expect(k.slot_keys ?? []).not.toContain('a:note');
    // Supersessions the reader still makes, corrections and the rest stay.
    const supersededAfter = await rows<{ id: string }>(`SELECT id FROM memories WHERE status = 'superseded' AND user_id <> 'nora'`);
    expect(supersededAfter.map((x) => x.id).sort()).toEqual(supersededBefore.map((x) => x.id).sort());
    const { results } = await recall({ user_id: 'dana', query: 'Which database does the desktop app use?', mode: 'memories' });
    expect(results[0]?.content).toMatch(/SQLite/);
  });
});
