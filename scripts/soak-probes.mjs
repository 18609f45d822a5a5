/**
 * The soak's probes (scripts/bench-soak.ts), in a process of their own: memloom's embedded
 * database runs on its process's main thread, so probes in that process would start late whenever
 * a statement holds it and miss part of each wait a client sees. Forked with IPC; posts a single
 * event every 200 ms and a recall every 500 ms against the URL in argv[2] until the parent sends
 * 'stop', then sends back the latencies in milliseconds and exits.
 */
const url = process.argv[2];
const TOOLS = ['PostgreSQL', 'Redis', 'Kafka', 'Grafana', 'Terraform', 'BullMQ'];
const QUERIES = [
  'which database did we choose for the billing service',
  'who owns the payments API',
  'where does the search service run',
  'what dashboards do I prefer',
];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function post(path, body) {
  const t = performance.now();
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  if (res.status >= 300) throw new Error(`${path} answered ${res.status}`);
  return performance.now() - t;
}

let probing = true;
const posts = [];
const recall = [];
async function probe(every, fn, into) {
  for (let i = 0; probing; i++) {
    into.push(await fn(i));
    await sleep(every);
  }
}
const running = Promise.all([
  probe(
    200,
    (i) =>
      post('/v1/events', {
        id: `probe-${i}`,
        user_id: 'probe',
        session_id: 'probe',
        content: `probe event ${i}: we decided to keep ${TOOLS[i % TOOLS.length]}.`,
      }),
    posts,
  ),
  probe(500, (i) => post('/v1/recall', { query: QUERIES[i % QUERIES.length], user_id: 'main', limit: 10 }), recall),
]);
running.catch((err) => {
  process.send?.({ error: String(err) });
  process.exit(1);
});
process.on('message', async (m) => {
  if (m !== 'stop') return;
  probing = false;
  await running;
  process.send?.({ post: posts, recall }, () => process.exit(0));
});
