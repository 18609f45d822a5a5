/**
 * HNSW build parameters: insert cost and recall@10 against an exact scan, in PGlite, on
 * feature-hashing vectors (384-d) of LoCoMo-like texts. The evidence behind
 * prisma/migrations/20261130020000_hnsw_build_params. A benchmark prints figures; nothing asserts.
 *
 *   npx tsx scripts/bench-hnsw.ts [--rows 20000] [--graphs 16:64,8:32] [--ef 80,120,200] [--queries 200]
 *
 * Documents are random 6–15-word spans of LoCoMo turns plus 3 random words of the corpus; queries
 * are LoCoMo turns. An approximate hit counts when its distance is within the exact 10th distance
 * (ties). The LoCoMo file (CC BY-NC 4.0) is read from ../shared/data, never copied.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { toVectorSql } from '../src/db/sql/vector.js';
import { HashingEmbedder } from '../src/providers/embeddings/hashing.js';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '20000' },
    graphs: { type: 'string', default: '16:64,8:32' },
    ef: { type: 'string', default: '80,120,200' },
    queries: { type: 'string', default: '200' },
    data: { type: 'string', default: path.resolve(import.meta.dirname, '../../shared/data/locomo-dev.json') },
  },
});

const samples = JSON.parse(readFileSync(args.data, 'utf8')) as Array<{ conversation: Record<string, unknown> }>;
const turns: string[] = [];
for (const s of samples) {
  for (const [key, value] of Object.entries(s.conversation))
    if (/^session_\d+$/.test(key) && Array.isArray(value)) for (const t of value as Array<{ text: string }>) turns.push(t.text);
}
const words = turns.join(' ').split(/\s+/).filter(Boolean);
let seed = 7;
const rnd = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const pick = <T>(list: T[]): T => list[Math.floor(rnd() * list.length)] as T;
const docs = Array.from({ length: Number(args.rows) }, () => {
  const t = pick(turns).split(/\s+/);
  const n = 6 + Math.floor(rnd() * 10);
  const start = Math.floor(rnd() * Math.max(1, t.length - n));
  return [...t.slice(start, start + n), pick(words), pick(words), pick(words)].join(' ');
});

const embedder = new HashingEmbedder({ dimensions: 384 });
const docVectors = (await embedder.embed(docs, 'document')).vectors;
const queryVectors = (await embedder.embed(turns.filter((_, i) => i % 4 === 0).slice(0, Number(args.queries)), 'query')).vectors;
const db = await PGlite.create({ extensions: { vector } });
await db.exec('CREATE EXTENSION vector');

process.stdout.write(
  `${docs.length} documents, ${queryVectors.length} queries (hashing, 384-d)\n\n| m | ef_construction | insert (ms/row) | ef_search | recall@10 | query (ms) |\n|---|---|---|---|---|---|\n`,
);
for (const graph of args.graphs.split(',')) {
  const [m, efc] = graph.split(':').map(Number);
  await db.exec(`DROP TABLE IF EXISTS b; CREATE TABLE b (id serial PRIMARY KEY, e vector, d int)`);
  await db.exec(`CREATE INDEX ON b USING hnsw ((e::vector(384)) vector_cosine_ops) WITH (m = ${m}, ef_construction = ${efc}) WHERE d = 384`);
  const t0 = performance.now();
  for (let i = 0; i < docVectors.length; i += 500) {
    const batch = JSON.stringify(docVectors.slice(i, i + 500).map(toVectorSql));
    await db.query(`INSERT INTO b (e, d) SELECT v::vector, 384 FROM jsonb_array_elements_text($1::jsonb) AS x(v)`, [batch]);
  }
  const perRow = (performance.now() - t0) / docVectors.length;
  for (const ef of args.ef.split(',').map(Number)) {
    await db.exec(`SET hnsw.ef_search = ${ef}`);
    let hits = 0;
    let total = 0;
    let queryMs = 0;
    for (const q of queryVectors) {
      const qs = toVectorSql(q);
      const t1 = performance.now();
      const ann = (await db.query<{ id: number }>(`SELECT id FROM b WHERE d = 384 ORDER BY e::vector(384) <=> $1::vector(384) LIMIT 10`, [qs])).rows.map(
        (r) => r.id,
      );
      queryMs += performance.now() - t1;
      const exact = (await db.query<{ s: number }>(`SELECT e <=> $1::vector AS s FROM b ORDER BY e <=> $1::vector LIMIT 10`, [qs])).rows;
      const tenth = exact[exact.length - 1]?.s ?? 0;
      const found = (await db.query<{ s: number }>(`SELECT e <=> $1::vector AS s FROM b WHERE id = ANY($2::int[])`, [qs, ann])).rows;
      hits += found.filter((r) => r.s <= tenth + 1e-9).length;
      total += exact.length;
    }
    process.stdout.write(`| ${m} | ${efc} | ${perRow.toFixed(2)} | ${ef} | ${(hits / total).toFixed(3)} | ${(queryMs / queryVectors.length).toFixed(1)} |\n`);
  }
}
await db.close();
