import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { postJson, startTestMemloom, type TestMemloom } from './support/memloom.js';

/**
 * POST /v1/events?wait=searchable: the answer comes once the stored events are recallable as
 * chunks, so a recall right after it finds them (read your writes); bounded by timeout_ms, after
 * which it is the usual 202 with `searchable: false`.
 */
type Accepted = { accepted: number; duplicates: number; ids: Array<string | null>; searchable?: boolean };

describe('POST /v1/events?wait=searchable with the pipeline running', () => {
  let m: TestMemloom;
  beforeAll(async () => {
    m = await startTestMemloom({ roles: { api: true, workers: QUEUE_NAMES } });
  });
  afterAll(async () => m?.close());

  const recall = async (query: string) =>
    ((await postJson(`${m.url}/v1/recall`, { query, user_id: 'u-ryw', mode: 'chunks' })).body as { results: Array<{ content: string }> }).results;

  it('answers once the events are searchable, and a recall right after finds them', async () => {
    for (const [i, city] of ['Reykjavik', 'Valparaiso', 'Ouagadougou'].entries()) {
      const content = `Deployment ${i}: the Kestrel cluster ${i} moved to ${city} on Tuesday.`;
      const res = await postJson(`${m.url}/v1/events?wait=searchable`, { user_id: 'u-ryw', session_id: 'ryw', content });
      expect(res.status).toBe(202);
      expect((res.body as Accepted).searchable).toBe(true);
      const found = await recall(`Kestrel cluster ${i} ${city}`);
      expect(found.map((r) => r.content)).toContain(content);
    }
  });

  it('counts an event skipped at triage as settled, and a duplicate by its stored event', async () => {
    const body = {
      events: [
        { id: 'ryw-dup', user_id: 'u-ryw', content: 'The Osprey runbook says to drain the queue before upgrading.' },
        { id: 'ryw-ack', user_id: 'u-ryw', content: 'ok thanks' },
      ],
    };
    const first = await postJson(`${m.url}/v1/events?wait=searchable&timeout_ms=30000`, body);
    expect(first.body).toMatchObject({ accepted: 2, duplicates: 0, searchable: true });
    expect((await recall('Osprey runbook drain the queue')).map((r) => r.content)).toContain(body.events[0]?.content);
    const again = await postJson(`${m.url}/v1/events?wait=searchable`, body);
    expect(again.body).toMatchObject({ accepted: 0, duplicates: 2, searchable: true });
  });

  it('answers without waiting, and without the field, when not asked', async () => {
    const res = await postJson(`${m.url}/v1/events`, { user_id: 'u-ryw', content: 'No wait for this one.' });
    expect(res.status).toBe(202);
    expect(res.body).not.toHaveProperty('searchable');
  });

  it('refuses a timeout beyond 30 s and an unknown query parameter, storing nothing', async () => {
    const events = async () => ((await (await fetch(`${m.url}/v1/stats`)).json()) as { objects: { events: number } }).objects.events;
    const before = await events();
    for (const q of ['wait=searchable&timeout_ms=30001', 'wait=searchable&timeout_ms=-1', 'wait=indexed', 'wiat=searchable']) {
      const res = await postJson(`${m.url}/v1/events?${q}`, { user_id: 'u-ryw', content: `refused ${q}` });
      expect(res.status, q).toBe(400);
      expect((res.body as { error: { code: string } }).error.code, q).toBe('INPUT_INVALID');
    }
    expect(await events()).toBe(before);
  });
});

describe('POST /v1/events?wait=searchable with no worker running', () => {
  let m: TestMemloom;
  beforeAll(async () => {
    m = await startTestMemloom({ roles: { api: true, workers: [] } });
  });
  afterAll(async () => m?.close());

  it('answers the 202 at timeout_ms with searchable: false; the events are stored all the same', async () => {
    const res = await postJson(`${m.url}/v1/events?wait=searchable&timeout_ms=300`, { content: 'Nobody processes this yet.' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ accepted: 1, duplicates: 0, searchable: false });
    const stats = (await (await fetch(`${m.url}/v1/stats`)).json()) as { objects: { events: number }; pending_events: number };
    expect(stats.objects.events).toBe(1);
    expect(stats.pending_events).toBe(1);
  });
});
