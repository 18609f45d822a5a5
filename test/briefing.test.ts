import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../src/db/pool.js';
import { insertMemory } from '../src/db/sql/memories-write.js';
import { addProvenance } from '../src/db/sql/provenance.js';
import { startRun } from '../src/db/sql/runs.js';
import { countTokens } from '../src/domain/tokens.js';
import { contentHash, ftsDocument, normalizeText } from '../src/domain/text.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { briefing } from '../workers/briefing/handler.js';
import { getJson, postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';
import { ingest, runStage, TENANT, waitForDeadLetter, waitForJob } from './support/pipeline.js';

let m: TestMemloom;
const MAX_TOKENS = 400;
const DAY = 86_400_000;
const at = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString();
const dir = () => path.join(m.home, 'working-memory');

async function workingMemory(userId: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(`${m.url}/v1/working-memory?user_id=${encodeURIComponent(userId)}`);
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/** Memories of one user, each supported by one stored event. */
async function seed(userId: string, items: Array<{ content: string; kind: string; importance?: number; daysAgo?: number }>): Promise<string[]> {
  const eventIds = await ingest(
    m.deps,
    items.map((it) => ({ user_id: userId, content: `evidence: ${it.content}` })),
  );
  const { vectors } = await m.deps.providers.embeddings.embed(
    items.map((it) => it.content),
    'document',
  );
  return withTenant(m.deps.db, TENANT, async (tx) => {
    const runId = await startRun(tx, { stage: 'test', jobId: undefined });
    const ids: string[] = [];
    for (const [i, it] of items.entries()) {
      const { id } = await insertMemory(
        tx,
        {
          kind: it.kind,
          content: it.content,
          content_hash: contentHash(normalizeText(it.content)),
          fts_doc: ftsDocument(it.content),
          vector: vectors[i]!,
          importance: it.importance ?? 5,
          confidence: 0.8,
          event_time: null,
          time_precision: null,
          occurred_at: at(it.daysAgo ?? 1),
          subject_entity_id: null,
          dataset: 'default',
          user_id: userId,
          agent_id: null,
          session_id: null,
          source_event_ids: [eventIds[i]!],
          version: 1,
        },
        m.deps.providers.embeddings.model,
        m.deps.providers.embeddings.dimensions,
        runId,
      );
      await addProvenance(tx, 'memory', [{ objectId: id, eventIds: [eventIds[i]!] }], runId);
      ids.push(id);
    }
    return ids;
  });
}

beforeAll(async () => {
  m = await startTestMemloom({ roles: { workers: QUEUE_NAMES }, env: { BRIEFING_DEBOUNCE_MS: '300', BRIEFING_MAX_TOKENS: String(MAX_TOKENS) } });
}, 300_000);
afterAll(async () => m?.close());

describe('working memory (briefing)', () => {
  it('digests current decisions, open plans and key procedures in their sections, and serves the file text as Markdown', async () => {
    await seed('ana', [
      { kind: 'decision', content: 'We chose PostgreSQL with pgvector for memory.', daysAgo: 20 },
      { kind: 'decision', content: 'We moved the job queue to BullMQ on Redis.', daysAgo: 2 },
      { kind: 'plan', content: 'Migrate the billing service to Kubernetes next week.' },
      { kind: 'procedure', content: 'Run the smoke tests before every deploy.', importance: 8 },
      { kind: 'procedure', content: 'Rotate the staging logs by hand on Mondays.', importance: 3 },
      { kind: 'preference', content: 'Ana prefers short answers with code.', importance: 7 },
    ]);
    await runStage(m.deps, briefing, { tenantId: TENANT, userId: 'ana' });
    const wm = await workingMemory('ana');
    expect(wm.status).toBe(200);
    expect(wm.type).toMatch(/^text\/markdown/);
    const md = wm.text;
    const order = [
      '# Working memory — ana',
      '## Preferences',
      'Ana prefers short answers',
      '## Current decisions',
      'BullMQ on Redis',
      'PostgreSQL with pgvector',
      '## Open plans and deadlines',
      'billing service to Kubernetes',
      '## Key procedures',
      'smoke tests before every deploy',
      '## Also important',
    ];
    const positions = order.map((s) => md.indexOf(s));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(md.indexOf('Rotate the staging logs')).toBeGreaterThan(md.indexOf('## Also important'));
    expect(await readFile(path.join(dir(), 'ana.md'), 'utf8')).toBe(md);
    // a replay rebuilds the same digest and leaves the file alone
    expect((await runStage(m.deps, briefing, { tenantId: TENANT, userId: 'ana' })).result).toMatchObject({ file: 'unchanged' });
    expect((await workingMemory('ana')).text).toBe(md);
  });

  it('holds the hard token cap with many memories', async () => {
    await seed(
      'busy',
      Array.from({ length: 40 }, (_, i) => ({
        kind: i % 4 === 0 ? 'decision' : 'fact',
        importance: 1 + (i % 10),
        content: `Busy fact ${i}: the nightly export of the analytics warehouse writes partition ${i} to cold storage after validation.`,
      })),
    );
    await runStage(m.deps, briefing, { tenantId: TENANT, userId: 'busy' });
    const wm = await workingMemory('busy');
    expect(wm.status).toBe(200);
    expect(countTokens(wm.text)).toBeLessThanOrEqual(MAX_TOKENS);
    const items = wm.text.split('\n').filter((l) => l.startsWith('- '));
    expect(items.length).toBeGreaterThan(0);
    expect(items.length).toBeLessThanOrEqual(20);
    const [state] = await withTenant(m.deps.db, TENANT, async (tx) => (await tx.query(`SELECT briefing_tokens FROM user_state WHERE user_id = 'busy'`)).rows);
    expect(state.briefing_tokens).toBe(countTokens(wm.text));
  });

  it('emits nothing for a user with nothing to say, and withdraws a digest whose memories are gone', async () => {
    await runStage(m.deps, briefing, { tenantId: TENANT, userId: 'nobody' });
    expect((await workingMemory('nobody')).status).toBe(404);
    await expect(stat(path.join(dir(), 'nobody.md'))).rejects.toThrow();

    const [only] = await seed('leaver', [{ kind: 'fact', content: 'Leaver keeps their notes in the shared drive.' }]);
    await runStage(m.deps, briefing, { tenantId: TENANT, userId: 'leaver' });
    expect((await workingMemory('leaver')).status).toBe(200);
    await withTenant(m.deps.db, TENANT, (tx) => tx.query(`UPDATE memories SET status = 'archived' WHERE id = $1`, [only]));
    await runStage(m.deps, briefing, { tenantId: TENANT, userId: 'leaver' });
    expect((await workingMemory('leaver')).status).toBe(404);
    await expect(stat(path.join(dir(), 'leaver.md'))).rejects.toThrow();
  });

  it('writes a safe file name for any user id', async () => {
    await seed('team/alpha:1', [{ kind: 'decision', content: 'Team alpha owns the checkout flow from now on.' }]);
    await runStage(m.deps, briefing, { tenantId: TENANT, userId: 'team/alpha:1' });
    const files = await readdir(dir());
    const file = files.find((f) => f.startsWith('team_alpha_1-'));
    expect(file).toMatch(/^team_alpha_1-[0-9a-f]{8}\.md$/);
    expect(await readFile(path.join(dir(), file!), 'utf8')).toBe((await workingMemory('team/alpha:1')).text);
  });

  it('is refreshed, debounced, after the pipeline writes new memories', async () => {
    const events = [
      { user_id: 'live', session_id: 'l1', role: 'user', content: 'We decided to deploy the new search service on Fridays only.' },
      { user_id: 'live', session_id: 'l1', role: 'user', content: 'Next month we will add a staging cluster in Dublin.' },
    ];
    expect((await postJson(`${m.url}/v1/events`, { events })).status).toBe(202);
    const wm = await waitFor(
      async () => {
        const r = await workingMemory('live');
        return r.status === 200 ? r : undefined;
      },
      { timeoutMs: 240_000, what: 'the debounced working memory' },
    );
    expect(wm.text).toMatch(/search service/);
    expect(await readFile(path.join(dir(), 'live.md'), 'utf8')).toBe(wm.text);
    expect((await getJson(`${m.url}/v1/working-memory`)).status).toBe(404);
  }, 300_000);

  it('fails an invalid payload permanently, without retries, into the dead letters', async () => {
    const queue = m.deps.queues.get('briefing');
    await queue.add('briefing', { tenantId: TENANT, userId: 42 }, { jobId: 'briefing-bad-payload', attempts: 5, backoff: { type: 'fixed', delay: 10 } });
    const { job, state } = await waitForJob(queue, 'briefing-bad-payload', ['failed', 'completed']);
    expect(state).toBe('failed');
    expect(job.attemptsMade).toBe(1);
    expect((await waitForDeadLetter(m.deps.db, 'briefing', 'briefing-bad-payload')).code).toBe('INPUT_INVALID');
  });
});
