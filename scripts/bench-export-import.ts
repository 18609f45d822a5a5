/**
 * Export and import throughput: one memloom (embedded, in memory, every pipeline stage, offline
 * providers) processes N conversational events, its tenant is exported as JSON lines, and the
 * file is imported into a second, fresh instance. Prints bytes, records and records/s of each
 * step; checks that the counts match. Figures depend on the machine and its load.
 * Run: npm run bench:export-import [-- --events 2000]
 */
import os from 'node:os';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { getJson, startTestMemloom, waitFor } from '../test/support/memloom.js';

const arg = process.argv.indexOf('--events');
const N = arg > 0 ? Number(process.argv[arg + 1]) : 2000;
const PEOPLE = ['Maria', 'Tom', 'Aiko', 'Ravi', 'Lena'];
const PROJECTS = ['Atlas', 'Borealis', 'Cirrus', 'Delta', 'Ember'];

const src = await startTestMemloom({ roles: { api: true, workers: QUEUE_NAMES } });
const dst = await startTestMemloom({ roles: { api: true, workers: QUEUE_NAMES } });
try {
  console.log(
    `${new Date().toISOString()}  ${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}  load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}  node ${process.version}  events ${N}`,
  );
  for (let i = 0; i < N; i += 500) {
    const events = Array.from({ length: Math.min(500, N - i) }, (_, k) => {
      const j = i + k;
      return {
        user_id: `u${j % 5}`,
        session_id: `s${Math.floor(j / 20)}`,
        role: j % 2 ? 'assistant' : 'user',
        content: `${PEOPLE[j % 5]} decided to move the ${PROJECTS[j % 5]} project to ${['PostgreSQL', 'Kubernetes', 'Rust', 'Lisbon', 'Friday releases'][(j * 7) % 5]} in ${2000 + (j % 25)}, turn ${j}.`,
      };
    });
    const res = await fetch(`${src.url}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ events }) });
    if (res.status !== 202) throw new Error(`ingest: ${res.status}`);
  }
  await waitFor(async () => (await getJson(`${src.url}/v1/stats`)).body.pending_events === 0, { timeoutMs: 1_800_000, intervalMs: 500, what: 'processing' });

  let t = performance.now();
  const file = await (await fetch(`${src.url}/v1/export`)).text();
  const exportMs = performance.now() - t;
  const records = file.split('\n').length - 1;
  console.log(
    `export  ${(Buffer.byteLength(file) / 1024 / 1024).toFixed(1)} MiB  ${records} records  ${(exportMs / 1000).toFixed(2)} s  ${Math.round(records / (exportMs / 1000))} records/s`,
  );

  t = performance.now();
  const res = await fetch(`${dst.url}/v1/import`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: file });
  const result = (await res.json()) as { rejected: number; embedded: number };
  const importMs = performance.now() - t;
  console.log(
    `import  ${records} records  ${(importMs / 1000).toFixed(2)} s  ${Math.round(records / (importMs / 1000))} records/s  rejected ${result.rejected}  re-embedded ${result.embedded}`,
  );

  const a = (await getJson(`${src.url}/v1/stats`)).body.objects;
  const b = (await getJson(`${dst.url}/v1/stats`)).body.objects;
  for (const k of ['events', 'chunks', 'memories', 'entities', 'edges', 'relations', 'provenance'])
    console.log(`  ${k.padEnd(12)} source ${String(a[k]).padStart(7)}  imported ${String(b[k]).padStart(7)}${a[k] === b[k] ? '' : '  DIFFERENT'}`);
} finally {
  await src.close();
  await dst.close();
}
