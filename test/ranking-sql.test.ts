/**
 * The ranking numbers that run in SQL agree with src/domain/scoring.ts, on a freshly migrated
 * database (PGlite here, PostgreSQL 15 in the server suite): the key-part weights the migrations
 * define (memloom_term_weight, memloom_refresh_chunk_keys) and the session prior of the keyword
 * retriever (src/db/sql/recall-bm25.ts), which adds SESSION_WEIGHT × the session's normalised BM25.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../src/db/migrator.js';
import { keywordSearch } from '../src/db/sql/recall-bm25.js';
import { KEY_TERM_WEIGHT, KEY_VECTOR_WEIGHT, SESSION_WEIGHT } from '../src/domain/scoring.js';
import { freshDatabase } from './support/fresh-database.js';

let client: pg.Client;
let stop: () => Promise<void>;

beforeAll(async () => {
  const db = await freshDatabase();
  stop = db.stop;
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await migrate(client);
}, 120_000);

afterAll(async () => {
  await client?.end();
  await stop?.();
});

describe('key-part weights', () => {
  it('memloom_term_weight gives each part of a key the term-frequency weight of KEY_TERM_WEIGHT', async () => {
    for (const [part, weight] of Object.entries(KEY_TERM_WEIGHT)) {
      const { rows } = await client.query<{ w: number }>(`SELECT memloom_term_weight(ARRAY[$1::text])::float8 AS w`, [part]);
      // A real: the float8 of the float4 nearest the constant.
      expect(rows[0]?.w, `part ${part}`).toBe(Math.fround(weight));
    }
    // The parts add up: a term in the own text and the previous turn counts D + C.
    const { rows } = await client.query<{ w: number }>(`SELECT memloom_term_weight(ARRAY['D', 'C'])::float8 AS w`);
    expect(rows[0]?.w).toBe(Math.fround(KEY_TERM_WEIGHT.D + KEY_TERM_WEIGHT.C));
  });

  it('memloom_refresh_chunk_keys builds key vectors with the neighbour weights of KEY_VECTOR_WEIGHT', async () => {
    const { rows } = await client.query<{ def: string }>(`SELECT pg_get_functiondef('memloom_refresh_chunk_keys'::regproc) AS def`);
    const m = /array_fill\(([\d.]+)::real, ARRAY\[d\]\)::vector AS prev, array_fill\(([\d.]+)::real, ARRAY\[d\]\)::vector AS next/.exec(rows[0]?.def ?? '');
    expect(m, 'the scale of the neighbours in memloom_refresh_chunk_keys').not.toBeNull();
    expect({ previous: Number(m?.[1]), next: Number(m?.[2]) }).toEqual(KEY_VECTOR_WEIGHT);
  });
});

describe('the session prior', () => {
  beforeAll(async () => {
    await client.query(`INSERT INTO tenants (id) VALUES ('t1') ON CONFLICT DO NOTHING`);
    await client.query(`SELECT set_config('app.tenant_id', 't1', false)`);
    // Two sessions, each with a turn "kiwi tart": s1 also speaks of mango, s2 does not.
    const turns = [
      ['s1', 'kiwi tart'],
      ['s1', 'mango lassi'],
      ['s1', 'mango chutney'],
      ['s2', 'kiwi tart'],
      ['s2', 'plum jam'],
      ['s2', 'fig roll'],
    ] as const;
    for (const [i, [session, text]] of turns.entries()) {
      const at = new Date(Date.UTC(2026, 0, 1, 10, i)).toISOString();
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO events (idem_key, user_id, session_id, content, content_hash, occurred_at) VALUES ($1, 'u', $2, $3, $1, $4) RETURNING id`,
        [`e${i}`, session, text, at],
      );
      await client.query(
        `INSERT INTO chunks (event_id, idx, content, start_offset, end_offset, tokens, content_hash, user_id, session_id, occurred_at, fts)
         VALUES ($1, 0, $2, 0, length($2), 2, $3, 'u', $4, $5, setweight(to_tsvector('simple', $2), 'D'))`,
        [rows[0]?.id, text, `c${i}`, session, at],
      );
    }
  });

  const kiwiTarts = async (weight: number) => {
    const hits = await keywordSearch(client, 'chunks', { userId: 'u' }, 'kiwi mango', 10, weight);
    const texts = new Map(
      (await client.query<{ id: string; content: string; session_id: string }>(`SELECT id, content, session_id FROM chunks`)).rows.map((r) => [r.id, r]),
    );
    return { hits, tart: (session: string) => hits.find((h) => texts.get(h.id)?.content === 'kiwi tart' && texts.get(h.id)?.session_id === session) };
  };

  it('ranks a turn of a session that speaks of the query above the same turn in a session that does not', async () => {
    const { tart } = await kiwiTarts(SESSION_WEIGHT);
    const inMangoSession = tart('s1');
    const elsewhere = tart('s2');
    expect(inMangoSession?.bm25).toBeCloseTo(elsewhere?.bm25 as number, 9);
    expect(inMangoSession?.session).toBeGreaterThan(elsewhere?.session as number);
    expect(inMangoSession?.score).toBeGreaterThan(elsewhere?.score as number);
    // Without the prior the two turns tie.
    const off = await kiwiTarts(0);
    expect(off.tart('s1')?.score).toBeCloseTo(off.tart('s2')?.score as number, 9);
  });

  it('adds SESSION_WEIGHT × the session BM25 over the best session to the BM25 over the best', async () => {
    const { hits } = await kiwiTarts(SESSION_WEIGHT);
    expect(hits.length).toBeGreaterThan(2);
    const best = Math.max(...hits.map((h) => h.bm25));
    const bestSession = Math.max(...hits.map((h) => h.session));
    for (const h of hits) expect(h.score).toBeCloseTo(h.bm25 / best + SESSION_WEIGHT * (h.session / bestSession), 9);
  });
});
