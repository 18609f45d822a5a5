import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestMemloom, type TestMemloom } from '../../test/support/memloom.js';
import { callsTo, ingest, perMessageExtractor, promptLines, runStage, sql, stubProviderEnv, TENANT, throughEmbed } from '../../test/support/pipeline.js';
import { startProviderStub, type ProviderStub } from '../../test/support/provider-stub.js';
import { answerPerGroup, SMALL_KEY_EVENTS } from './coalesce.js';
import { extract } from './handler.js';

const CHAT = '/v1/chat/completions';
const EMB = '/v1/embeddings';
const TECH = ['PostgreSQL', 'Redis', 'Kafka', 'Grafana', 'Terraform', 'Kubernetes'];

const isExtraction = (c: { body: { messages?: Array<{ content: string | null }> } }) =>
  (c.body?.messages?.[0]?.content ?? '').startsWith('You extract long-term memory');

describe('answerPerGroup', () => {
  it('gives each group the items with sources in it, renumbered, and an item of two groups to both', () => {
    const memory = (sources: number[]) => ({ kind: 'fact' as const, content: `m${sources.join('')}`, importance: 5, confidence: 0.9, sources, entities: [] });
    const result = {
      memories: [memory([0]), memory([1, 2]), memory([3])],
      entities: [{ name: 'Ada', type: 'person', description: '', sources: [2, 3] }],
      triplets: [],
    };
    const [a, b] = answerPerGroup(result, [2, 2]);
    expect(a?.memories.map((m) => [m.content, m.sources])).toEqual([
      ['m0', [0]],
      ['m12', [1]],
    ]);
    expect(b?.memories.map((m) => [m.content, m.sources])).toEqual([
      ['m12', [0]],
      ['m3', [1]],
    ]);
    expect(a?.entities).toEqual([]);
    expect(b?.entities.map((e) => e.sources)).toEqual([[0, 1]]);
    expect(answerPerGroup(result, [4])[0]).toBe(result);
  });
});

describe('small sessions batched into one extraction call (OpenAI-compatible provider)', () => {
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
    stub.onChat(perMessageExtractor());
  });

  /** One-event sessions `<prefix>-<i>` of `user`, each naming one technology; returns their ids. */
  const oneEventSessions = (prefix: string, user: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      id: `${prefix}-${i}`,
      session_id: `${prefix}-${i}`,
      user_id: user,
      role: 'user',
      content: `Note ${i}: the ${TECH[i % TECH.length]} setup of ${prefix} is done`,
      metadata: { speaker: `Speaker${i}` },
    }));

  it('extracts a user’s one-event sessions in one call, each unit in its own session with provenance to its own event; never a chat call before extraction', async () => {
    const mine = await ingest(m.deps, oneEventSessions('one', 'u-one', 6));
    // A session of more than SMALL_KEY_EVENTS events of the same user, and another user's one-event session: not taken.
    const long = await ingest(
      m.deps,
      Array.from({ length: SMALL_KEY_EVENTS + 1 }, (_, i) => ({
        session_id: 'one-long',
        user_id: 'u-one',
        role: 'user',
        content: `Long session turn ${i} about Kafka`,
      })),
    );
    const other = await ingest(m.deps, oneEventSessions('other', 'u-two', 1));
    await throughEmbed(m.deps, [...mine, ...long, ...other]);
    expect(callsTo(stub, CHAT)).toEqual([]); // triage decided every event offline

    const before = stub.calls.length;
    const { result, next } = await runStage(m.deps, extract, { tenantId: TENANT, extractKey: 'session:one-0' });
    expect(result).toMatchObject({ events: 6, memories_added: 6 });
    // The sessions it took get their own pass at once (not when this pass's claim would have
    // expired): it finds their events extracted and refreshes the user's working memory.
    const followUps = next.filter((j) => j.stage === 'extract').map((j) => [(j.input as { extractKey: string }).extractKey, j.opts?.delay]);
    expect(followUps.sort()).toEqual([1, 2, 3, 4, 5].map((i) => [`session:one-${i}`, 0]));
    const chats = callsTo(stub, CHAT).filter(isExtraction);
    expect(chats).toHaveLength(1);
    expect(promptLines(chats[0]?.body)).toHaveLength(6);
    expect(callsTo(stub, EMB, before)).toHaveLength(1); // entities and units of every session embedded together

    const units = await sql<{ id: string; session_id: string; content: string; events: string[] }>(
      m.deps.db,
      `SELECT m.id, m.session_id, m.content, array_agg(p.event_id::text ORDER BY p.event_id) AS events
       FROM memories m JOIN provenance p ON p.object_type = 'memory' AND p.object_id = m.id
       WHERE m.user_id = 'u-one' GROUP BY m.id`,
    );
    expect(units).toHaveLength(6);
    const eventOfSession = new Map(mine.map((id, i) => [`one-${i}`, id]));
    for (const u of units) {
      expect(u.events).toEqual([eventOfSession.get(u.session_id)]);
      expect(u.content).toContain(`Note ${u.session_id.slice('one-'.length)}:`);
    }
    const status = await sql<{ id: string; status: string }>(m.deps.db, 'SELECT id, status FROM events WHERE id = ANY($1::uuid[])', [
      [...mine, ...long, ...other],
    ]);
    const of = (ids: string[]) => status.filter((s) => ids.includes(s.id)).map((s) => s.status);
    expect(of(mine)).toEqual(mine.map(() => 'done'));
    expect(of(long)).toEqual(long.map(() => 'embedded'));
    expect(of(other)).toEqual(['embedded']);

    // The other sessions' own (debounced) passes find nothing left and pay nothing.
    const since = stub.calls.length;
    for (let i = 1; i < 6; i++)
      expect((await runStage(m.deps, extract, { tenantId: TENANT, extractKey: `session:one-${i}` })).result).toMatchObject({ events: 0 });
    expect(stub.calls.slice(since)).toEqual([]);
  });

  it('a pass that failed after the model answered is replayed from the cache: no second extraction call, every unit once', async () => {
    const ids = await ingest(m.deps, oneEventSessions('again', 'u-again', 4));
    await throughEmbed(m.deps, ids);
    // The extraction is answered, then the embedding of its units fails: the pass gives its claim back.
    stub.script(EMB, [{ status: 500 }]);
    await expect(runStage(m.deps, extract, { tenantId: TENANT, extractKey: 'session:again-2' })).rejects.toThrow();
    expect(callsTo(stub, CHAT).filter(isExtraction)).toHaveLength(1);
    const pending = await sql<{ n: number }>(m.deps.db, `SELECT count(*)::int AS n FROM events WHERE id = ANY($1::uuid[]) AND status = 'embedded'`, [ids]);
    expect(pending[0]?.n).toBe(4);

    const { result } = await runStage(m.deps, extract, { tenantId: TENANT, extractKey: 'session:again-2' });
    expect(result).toMatchObject({ events: 4, memories_added: 4 });
    expect(callsTo(stub, CHAT).filter(isExtraction)).toHaveLength(1);
    const units = await sql<{ session_id: string; n: number }>(
      m.deps.db,
      `SELECT session_id, count(*)::int AS n FROM memories WHERE user_id = 'u-again' GROUP BY session_id ORDER BY session_id`,
    );
    expect(units).toEqual([0, 1, 2, 3].map((i) => ({ session_id: `again-${i}`, n: 1 })));
  });
});
