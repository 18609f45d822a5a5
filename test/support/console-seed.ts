import { withTenant } from '../../src/db/pool.js';
import { insertMemory, relateMemories, type MemoryInsert } from '../../src/db/sql/memories-write.js';
import { startRun } from '../../src/db/sql/runs.js';
import { contentHash, ftsDocument, normalizeText } from '../../src/domain/text.js';
import { QUEUE_NAMES } from '../../src/queue/names.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './memloom.js';
import { poisonWrites } from './owner-sql.js';

/** Two tenants: acme (key ka) and globex (key kb); the admin key opens Bull Board. */
export const KEYS = { acme: 'ka', globex: 'kb', admin: 'kadmin' };
export const auth = (key: string) => ({ authorization: `Bearer ${key}` });

/** A marker the chunk stage is made to reject, so one job fails for good and leaves a dead letter. */
export const POISON = 'Zanzibar-Quetzal';

export interface ConsoleScene {
  m: TestMemloom;
  /** Two active memories of alice in a `challenges` relation. */
  conflict: [string, string];
  /** Removes the poison trigger (the dead letter's job can then succeed when retried). */
  cure(): Promise<void>;
}

const DAY = 86_400_000;
const at = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString();

/**
 * A memloom with everything real (pipeline workers, heuristic extraction, local embeddings) and a
 * small scene for the console: alice's two sessions in acme, bob's in globex, an open conflict of
 * alice's, and one dead letter (a chunk job that a database trigger rejects).
 */
export async function startConsoleScene(): Promise<ConsoleScene> {
  const m = await startTestMemloom({
    env: { MEMLOOM_API_KEYS: `${KEYS.acme}:acme,${KEYS.globex}:globex`, MEMLOOM_ADMIN_KEYS: KEYS.admin, EXTRACT_DEBOUNCE_MS: '0', BRIEFING_DEBOUNCE_MS: '200' },
    roles: { workers: QUEUE_NAMES },
  });
  const acme = auth(KEYS.acme);
  const events = [
    { user_id: 'alice', session_id: 'planning-1', occurred_at: at(12), content: 'We decided to use PostgreSQL with pgvector for the billing service.' },
    { user_id: 'alice', session_id: 'planning-1', occurred_at: at(12), content: 'I prefer Grafana dashboards for watching PostgreSQL.' },
    { user_id: 'alice', session_id: 'planning-1', occurred_at: at(12), content: 'The staging database runs on port 5433 behind the VPN.' },
    { user_id: 'alice', session_id: 'standup-2', occurred_at: at(3), content: 'Next week we will upgrade Redis on the staging cluster with Maria.' },
    { user_id: 'alice', session_id: 'standup-2', occurred_at: at(3), content: 'Maria owns the Redis upgrade and the release checklist.' },
  ];
  const globex = [{ user_id: 'bob-globex', session_id: 'gx-1', content: 'Globex ships the kiosk firmware on Fridays.' }];
  if ((await postJson(`${m.url}/v1/events`, { events }, acme)).status !== 202) throw new Error('acme events refused');
  if ((await postJson(`${m.url}/v1/events`, { events: globex }, auth(KEYS.globex))).status !== 202) throw new Error('globex events refused');
  const settled = async () => {
    const s = (await getJson(`${m.url}/v1/stats`, acme)).body;
    return s.pending_events === 0 && s.objects.memories > 0;
  };
  await waitFor(settled, { timeoutMs: 240_000, what: 'the pipeline' });
  const conflict = await seedConflict(m);
  // One job that fails for good: the chunk stage's write of this event is rejected by a trigger.
  const cure = await poisonWrites(m.deps, 'chunks', 'content', POISON, '22008');
  await postJson(`${m.url}/v1/events`, { user_id: 'alice', session_id: 'standup-2', content: `The ${POISON} launch notes are in the shared drive.` }, acme);
  await waitFor(async () => (await getJson(`${m.url}/v1/dead-letters`, acme)).body.dead_letters.length > 0, { timeoutMs: 120_000, what: 'a dead letter' });
  return { m, conflict, cure };
}

/** Two contradicting memories of alice, linked as the dream stage links them (it never picks a side). */
async function seedConflict(m: TestMemloom): Promise<[string, string]> {
  const texts = ['The release train leaves on Mondays.', 'The release train leaves on Thursdays.'];
  const { vectors } = await m.deps.providers.embeddings.embed(texts, 'document');
  const { model, dimensions } = m.deps.providers.embeddings;
  return withTenant(m.deps.db, 'acme', async (tx) => {
    const runId = await startRun(tx, { stage: 'test', jobId: undefined });
    const ids: string[] = [];
    for (const [i, content] of texts.entries()) {
      const row: MemoryInsert = {
        kind: 'fact',
        content,
        content_hash: contentHash(normalizeText(content)),
        fts_doc: ftsDocument(content),
        vector: vectors[i] as number[],
        importance: 6,
        confidence: 0.8,
        event_time: null,
        time_precision: null,
        occurred_at: at(2 - i),
        subject_entity_id: null,
        dataset: 'default',
        user_id: 'alice',
        agent_id: null,
        session_id: null,
        source_event_ids: [],
        version: 1,
      };
      ids.push((await insertMemory(tx, row, model, dimensions, runId)).id);
    }
    await relateMemories(tx, ids[1] as string, ids[0] as string, 'challenges', false);
    return [ids[0], ids[1]] as [string, string];
  });
}
