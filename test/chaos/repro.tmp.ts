import { postJson, startTestMemloom, getJson } from '../support/memloom.js';
import { createScratchDatabase, OwnRedis } from '../support/server-mode.js';
const redis = await OwnRedis.start();
const db = await createScratchDatabase();
const m = await startTestMemloom({ env: { DATABASE_URL: db.url, REDIS_URL: redis.url, EXTRACT_DEBOUNCE_MS: '300', LOG_LEVEL: 'warn' }, roles: { api: true, workers: ['triage', 'chunk', 'embed', 'extract', 'briefing', 'maintenance'], scheduler: true } });
const ev = (t: string, n: number) => Array.from({ length: n }, (_, i) => ({ session_id: `${t}-s${i % 7}`, user_id: 'u', role: 'user', content: `We decided to move billing to PostgreSQL ${t} ${i}.` }));
for (let i = 0; i < 6; i++) await postJson(`${m.url}/v1/events`, { events: ev(`a${i}`, 40) });
await new Promise((r) => setTimeout(r, 1500));
await redis.kill();
for (let i = 0; i < 3; i++) console.log((await postJson(`${m.url}/v1/events`, { events: ev(`o${i}`, 30) })).status);
await redis.start();
console.log('restarted');
for (let i = 0; i < 40; i++) {
  await new Promise((r) => setTimeout(r, 3000));
  const s = (await getJson(`${m.url}/v1/stats`)).body as any;
  const running = (m as any).workers;
  console.log(i, 'pending', s.pending_events, JSON.stringify(s.queues));
  if (s.pending_events === 0) break;
}
await m.close(); await redis.kill(); await db.drop();
process.exit(0);
