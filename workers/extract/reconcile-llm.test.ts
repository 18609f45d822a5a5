import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { withTenant } from '../../src/db/pool.js';
import { knownEntities } from '../../src/db/sql/entities.js';
import { claimForExtraction, releaseExtraction } from '../../src/db/sql/extract-events.js';
import { thresholdsFor } from '../../src/domain/reconcile.js';
import { RECONCILE_SYSTEM_PROMPT } from '../../src/providers/llm/prompts.js';
import { startTestMemloom, type TestMemloom } from '../../test/support/memloom.js';
import { ingest, promptLines, runStage, sql, stubProviderEnv, TENANT, throughEmbed } from '../../test/support/pipeline.js';
import { startProviderStub, stubEmbedding, type ChatHandler, type ProviderStub, type RecordedCall } from '../../test/support/provider-stub.js';
import { askProviders, extract } from './handler.js';
import { EXTRACT_BATCH, extractLeaseMs } from './schema.js';

const CHAT = '/v1/chat/completions';
const EMB = '/v1/embeddings';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

const WINDOW = 'Bob prefers window seats on long flights.';
const AISLE = 'Bob prefers aisle seats on long flights now.'; // a changed preference, not similar enough for the rules
const TEA = 'Bob prefers green tea in the morning.';
const NO_TEA = 'Bob no longer drinks green tea in the morning.';
const FRIDAYS = 'The team meets on Fridays.'; // near nothing: never asked about
const AISLE_2 = 'Bob prefers aisle seats on long flights these days.'; // near WINDOW too, asked in words of its own

/** One memory per message, about its speaker (the subject the rules need for UPDATE and CHALLENGE). */
function extractor(): ChatHandler {
  return (body) => {
    if (!(body.messages[0]?.content ?? '').startsWith('You extract long-term memory')) return undefined;
    const lines = promptLines(body);
    return JSON.stringify({
      memories: lines.map(({ index, speaker, content }) => ({
        kind: /team/i.test(content) ? 'fact' : 'preference',
        content,
        importance: 6,
        confidence: 0.9,
        subject: speaker,
        sources: [index],
        entities: [speaker],
      })),
      entities: lines.map(({ index, speaker }) => ({ name: speaker, type: 'person', description: 'a traveller', sources: [index] })),
      triplets: [],
    });
  };
}

interface AskedUnit {
  unit: number;
  content: string;
  candidates: Array<{ n: number; content: string }>;
}
const isReconcile = (c: RecordedCall) => c.path === CHAT && String(c.body?.messages?.[0]?.content).startsWith(RECONCILE_SYSTEM_PROMPT);
/** The new statements of a reconcile prompt, each with its numbered candidates. */
function askedUnits(body: { messages: Array<{ role: string; content: string | null }> }): AskedUnit[] {
  const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
  const memories = new Map([...user.matchAll(/^#(\d+) \([^)]*\) (.*)$/gm)].map((x) => [Number(x[1]), x[2] as string]));
  return [...user.matchAll(/^\[(\d+)\] \([^)]*\) (.*) — candidates: (.*)$/gm)].map((x) => ({
    unit: Number(x[1]),
    content: x[2] as string,
    candidates: (x[3] as string)
      .split(', ')
      .map((c) => Number(c.slice(1)))
      .map((n) => ({ n, content: memories.get(n) ?? '' })),
  }));
}
/** A reconcile model that decides each asked unit with `decide` (ADD when it returns nothing). */
function reconciler(decide: (u: AskedUnit) => { action: string; target?: number | null } | undefined): ChatHandler {
  return (body) => {
    if (!(body.messages[0]?.content ?? '').startsWith(RECONCILE_SYSTEM_PROMPT)) return undefined;
    return JSON.stringify({ decisions: askedUnits(body).map((u) => ({ unit: u.unit, target: null, ...(decide(u) ?? { action: 'ADD' }) })) });
  };
}
const targetOf = (u: AskedUnit, content: string) => u.candidates.find((c) => c.content === content)?.n;

describe('reconcile with an OpenAI-compatible model: one batched decision per pass', () => {
  let stub: ProviderStub;
  let m: TestMemloom;
  beforeAll(async () => {
    stub = await startProviderStub({ dimensions: 384 });
    m = await startTestMemloom({ env: { ...stubProviderEnv(stub), EXTRACT_DEBOUNCE_MS: '0' }, roles: { api: false, workers: [] } });
  });
  afterAll(async () => {
    await m?.close();
    await stub?.close();
  });
  beforeEach(() => {
    stub.reset();
    stub.onChat(extractor());
  });

  /** Stores a session of Bob's for `user` and brings it to `embedded` (triage may ask the model too). */
  async function embedded(user: string, session: string, lines: string[]): Promise<string[]> {
    const ids = await ingest(
      m.deps,
      lines.map((content) => ({ session_id: session, user_id: user, role: 'user', content, metadata: { speaker: 'Bob' } })),
    );
    await throughEmbed(m.deps, ids);
    return ids;
  }
  const pass = (session: string) => runStage(m.deps, extract, { tenantId: TENANT, extractKey: `session:${session}` });
  const memory = async (user: string, content: string) =>
    (
      await sql<{ id: string; status: string; superseded_by: string | null; version: number }>(
        m.deps.db,
        'SELECT id, status, superseded_by, version FROM memories WHERE user_id = $1 AND content = $2',
        [user, content],
      )
    )[0];
  const relations = (user: string) =>
    sql<{ from_content: string; relation: string; to_content: string }>(
      m.deps.db,
      `SELECT f.content AS from_content, r.relation, t.content AS to_content FROM memory_relations r
       JOIN memories f ON f.id = r.from_memory_id JOIN memories t ON t.id = r.to_memory_id WHERE f.user_id = $1 ORDER BY f.content`,
      [user],
    );
  const paidCalls = (since: number) => stub.calls.slice(since).filter((c) => c.path === CHAT || c.path === EMB);

  it('supersedes a preference the rules would have kept beside its new wording, when the model answers UPDATE; one call for the pass', async () => {
    // The premise: close enough to ask the model, too far for the rules' UPDATE.
    const t = thresholdsFor(m.deps.providers.embeddings.model);
    const cos = (a: string, b: string) => stubEmbedding(a, 384).reduce((s, x, i) => s + x * (stubEmbedding(b, 384)[i] as number), 0);
    for (const [a, b] of [
      [WINDOW, AISLE],
      [TEA, NO_TEA],
      [WINDOW, AISLE_2],
    ] as const) {
      expect(cos(a, b)).toBeGreaterThanOrEqual(t.consider);
      expect(cos(a, b)).toBeLessThan(t.related);
    }

    await embedded('u-upd', 'rec-1', [WINDOW, TEA]);
    const first = stub.calls.length;
    expect((await pass('rec-1')).result).toMatchObject({ events: 2, memories_added: 2 });
    expect(stub.calls.slice(first).filter(isReconcile)).toEqual([]); // nothing to compare with yet

    const model = reconciler((u) =>
      u.content === AISLE
        ? { action: 'UPDATE', target: targetOf(u, WINDOW) }
        : u.content === NO_TEA
          ? { action: 'CHALLENGE', target: targetOf(u, TEA) }
          : undefined,
    );
    stub.onChat(model);
    await embedded('u-upd', 'rec-2', [AISLE, NO_TEA, FRIDAYS]);
    const since = stub.calls.length;
    const { result } = await pass('rec-2');
    expect(result).toMatchObject({ events: 3, memories_added: 1, memories_updated: 1, memories_challenged: 1 });

    const asks = stub.calls.slice(since).filter(isReconcile);
    expect(asks).toHaveLength(1); // one question for the pass, not one per unit
    expect(askedUnits(asks[0]?.body).map((u) => u.content)).toEqual([AISLE, NO_TEA]); // FRIDAYS is near nothing
    expect(JSON.stringify(asks[0]?.body.messages)).not.toMatch(UUID);

    const [oldSeat, newSeat] = [await memory('u-upd', WINDOW), await memory('u-upd', AISLE)];
    expect(oldSeat).toMatchObject({ status: 'superseded', superseded_by: newSeat?.id });
    expect(newSeat).toMatchObject({ status: 'active', version: 2 });
    expect((await memory('u-upd', TEA))?.status).toBe('active'); // a challenge keeps both
    expect(await relations('u-upd')).toEqual([
      { from_content: NO_TEA, relation: 'challenges', to_content: TEA },
      { from_content: AISLE, relation: 'replaces', to_content: WINDOW },
    ]);
    // The call passed the gate and its tokens, as the stub billed them, are counted under its own task.
    const [usage] = await sql<{ n: number; tokens: number }>(
      m.deps.db,
      `SELECT count(*)::int AS n, sum(tokens_in + tokens_out)::int AS tokens FROM token_usage WHERE task = 'reconcile'`,
    );
    const prompt = (asks[0]!.body.messages as Array<{ content: string }>).map((x) => x.content).join('\n');
    expect(usage).toEqual({ n: 1, tokens: Math.ceil(prompt.length / 4) + Math.ceil(String(model(asks[0]?.body)).length / 4) });

    // A replay of the pass finds nothing to do and asks nothing.
    const again = stub.calls.length;
    expect((await pass('rec-2')).result).toEqual({ events: 0 });
    expect(paidCalls(again)).toEqual([]);
  });

  it('pays nothing again when a pass dies after the model answered: the retry finds every answer cached', async () => {
    await embedded('u-crash', 'rec-3', [WINDOW]);
    await pass('rec-3');
    stub.onChat(reconciler((u) => ({ action: 'UPDATE', target: targetOf(u, WINDOW) })));
    const ids = await embedded('u-crash', 'rec-4', [AISLE]);

    // A pass claims the events and asks every provider, then dies before its write transaction.
    const before = stub.calls.length;
    const claimed = await withTenant(m.deps.db, TENANT, async (tx) => ({
      events: await claimForExtraction(tx, 'session:rec-4', EXTRACT_BATCH, extractLeaseMs(m.deps.config)),
      known: await knownEntities(tx, { dataset: 'default', userId: 'u-crash' }, 100),
    }));
    expect(claimed.events.map((e) => e.id)).toEqual(ids);
    await askProviders(m.deps, TENANT, claimed.events, claimed.known, m.deps.log);
    expect(stub.calls.slice(before).filter(isReconcile)).toHaveLength(1);
    await withTenant(m.deps.db, TENANT, (tx) => releaseExtraction(tx, ids));

    const since = stub.calls.length;
    expect((await pass('rec-4')).result).toMatchObject({ events: 1, memories_updated: 1 });
    expect(paidCalls(since)).toEqual([]);
    expect((await memory('u-crash', WINDOW))?.status).toBe('superseded');
  });

  it('falls back to the rules for a unit whose target is unknown, without a corrective call', async () => {
    await embedded('u-bad', 'rec-5', [WINDOW]);
    await pass('rec-5');
    stub.onChat(reconciler(() => ({ action: 'UPDATE', target: 99 })));
    // Answers are cached by question (texts and dates, no user): the question must be new here.
    await embedded('u-bad', 'rec-6', [AISLE_2]);
    const since = stub.calls.length;
    // The rules decide: the same slot (Bob's seat preference) with a new value "these days" supersedes.
    expect((await pass('rec-6')).result).toMatchObject({ events: 1, memories_added: 0, memories_updated: 1 });
    expect(stub.calls.slice(since).filter(isReconcile)).toHaveLength(1);
    expect((await memory('u-bad', WINDOW))?.status).toBe('superseded');
    expect(await relations('u-bad')).toEqual([{ from_content: AISLE_2, relation: 'replaces', to_content: WINDOW }]);
  });

  it("applies the model's INVALIDATE, CONFIRM and NOOP, shown the memories of the same slot", async () => {
    const GONE = 'Bob no longer cares which seat he gets on long flights.';
    const STILL_TEA = 'Bob still starts the day with green tea.';
    const NOISE = 'Bob waved at everyone in the office.';
    await embedded('u-dec', 'rec-11', [WINDOW, TEA]);
    await pass('rec-11');
    stub.onChat(
      reconciler((u) =>
        u.content === GONE
          ? { action: 'INVALIDATE', target: targetOf(u, WINDOW) }
          : u.content === STILL_TEA
            ? { action: 'CONFIRM', target: targetOf(u, TEA) }
            : u.content === NOISE
              ? { action: 'NOOP' }
              : undefined,
      ),
    );
    await embedded('u-dec', 'rec-12', [GONE, STILL_TEA, NOISE]);
    const since = stub.calls.length;
    const { result } = await pass('rec-12');
    const asked = askedUnits(stub.calls.slice(since).filter(isReconcile)[0]?.body);
    expect(asked.map((u) => u.content).sort()).toEqual([GONE, NOISE, STILL_TEA].sort());
    expect(asked.find((u) => u.content === GONE)?.candidates.map((c) => c.content)).toContain(WINDOW);
    expect(result).toMatchObject({ events: 3, memories_added: 0, memories_updated: 1, memories_confirmed: 1 });
    const [seat, gone] = [await memory('u-dec', WINDOW), await memory('u-dec', GONE)];
    expect(seat).toMatchObject({ status: 'superseded', superseded_by: gone?.id });
    expect(gone?.status).toBe('active');
    expect((await memory('u-dec', TEA))?.status).toBe('active');
    expect(await memory('u-dec', STILL_TEA)).toBeUndefined(); // confirmed: a source of TEA, not a row of its own
    expect(await memory('u-dec', NOISE)).toBeUndefined();
    const [sources] = await sql<{ n: number }>(
      m.deps.db,
      `SELECT count(*)::int AS n FROM provenance p JOIN memories x ON x.id = p.object_id WHERE p.object_type = 'memory' AND x.content = $1 AND x.user_id = 'u-dec'`,
      [TEA],
    );
    expect(sources?.n).toBe(2);
  });

  it('lands the extraction by the rules when the model answers invalid JSON twice, and a retry does not ask again', async () => {
    await embedded('u-junk', 'rec-7', [TEA]);
    await pass('rec-7');
    stub.onChat((body) => ((body.messages[0]?.content ?? '').startsWith(RECONCILE_SYSTEM_PROMPT) ? 'not json' : undefined));
    const ids = await embedded('u-junk', 'rec-8', [NO_TEA]);

    const before = stub.calls.length;
    const claimed = await withTenant(m.deps.db, TENANT, (tx) => claimForExtraction(tx, 'session:rec-8', EXTRACT_BATCH, extractLeaseMs(m.deps.config)));
    const asked = await askProviders(m.deps, TENANT, claimed, [], m.deps.log);
    expect(asked.decisions).toBeUndefined(); // the rules decide
    expect(stub.calls.slice(before).filter(isReconcile)).toHaveLength(2); // the answer and its one correction
    await withTenant(m.deps.db, TENANT, (tx) => releaseExtraction(tx, ids));

    const since = stub.calls.length;
    // The rules decide: "no longer drinks green tea" takes back the preference (INVALIDATE).
    expect((await pass('rec-8')).result).toMatchObject({ events: 1, memories_updated: 1 });
    expect(paidCalls(since)).toEqual([]); // the invalid outcome was paid for and is cached too
    expect((await memory('u-junk', TEA))?.status).toBe('superseded');
  });

  it('asks nothing when no unit has a candidate: a new user, or a text the user already has', async () => {
    await embedded('u-none', 'rec-9', [AISLE, TEA]); // other users hold near memories, this one none
    let since = stub.calls.length;
    expect((await pass('rec-9')).result).toMatchObject({ events: 2, memories_added: 2 });
    expect(stub.calls.slice(since).filter(isReconcile)).toEqual([]);

    await embedded('u-none', 'rec-10', [AISLE]); // the same text again: the rules confirm it
    since = stub.calls.length;
    expect((await pass('rec-10')).result).toMatchObject({ events: 1, memories_confirmed: 1 });
    expect(stub.calls.slice(since).filter(isReconcile)).toEqual([]);
  });
});
