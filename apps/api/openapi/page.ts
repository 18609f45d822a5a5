/**
 * GET /docs: a self-contained page (no CDN, no external script: memloom runs offline) that renders
 * /openapi.json as a list of operations with their parameters, bodies and answers.
 */
export const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>memloom API</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:980px;padding:1.5rem;color:#1d1d1f}
h1{margin:.2rem 0}h2{margin-top:2rem;border-bottom:1px solid #ddd;text-transform:capitalize}
details{border:1px solid #ddd;border-radius:6px;margin:.4rem 0;padding:.3rem .6rem}
summary{cursor:pointer;display:flex;gap:.6rem;align-items:baseline}
.m{font:600 12px monospace;padding:2px 6px;border-radius:4px;color:#fff;min-width:52px;text-align:center}
.GET{background:#2b7bb9}.POST{background:#2f9e44}.PATCH{background:#c77c02}.DELETE{background:#c92a2a}
code,pre{font-family:ui-monospace,monospace;font-size:13px}pre{background:#f6f8fa;padding:.5rem;overflow:auto;border-radius:4px}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}.pub{color:#777;font-size:12px}
</style></head><body>
<h1>memloom API</h1><p id="intro">Loading <a href="/openapi.json">/openapi.json</a>…</p><div id="ops"></div>
<script>
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const pre = (v) => '<pre>' + esc(JSON.stringify(v, null, 2)) + '</pre>';
fetch('/openapi.json').then((r) => r.json()).then((doc) => {
  document.getElementById('intro').innerHTML = esc(doc.info.description) + ' Version ' + esc(doc.info.version) + '. Raw document: <a href="/openapi.json">/openapi.json</a>.';
  const byTag = {};
  for (const [path, ops] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(ops)) (byTag[op.tags[0]] ??= []).push({ path, method: method.toUpperCase(), op });
  let html = '';
  for (const tag of doc.tags.map((t) => t.name)) {
    if (!byTag[tag]) continue;
    html += '<h2>' + esc(tag) + '</h2>';
    for (const { path, method, op } of byTag[tag]) {
      html += '<details><summary><span class="m ' + method + '">' + method + '</span><code>' + esc(path) + '</code><span>' + esc(op.summary) + '</span>' + (op.security && op.security.length === 0 ? '<span class="pub">no key</span>' : '') + '</summary>';
      if (op.description) html += '<p>' + esc(op.description) + '</p>';
      if (op.parameters) html += '<table><tr><th>parameter</th><th>in</th><th>schema</th><th>description</th></tr>' + op.parameters.map((p) => '<tr><td><code>' + esc(p.name) + '</code>' + (p.required ? ' *' : '') + '</td><td>' + p.in + '</td><td><code>' + esc(JSON.stringify(p.schema)) + '</code></td><td>' + esc(p.description || '') + '</td></tr>').join('') + '</table>';
      if (op.requestBody) for (const [type, c] of Object.entries(op.requestBody.content)) html += '<p>Body (' + esc(type) + ')</p>' + pre(c.schema);
      html += '<p>Answers</p><ul>' + Object.entries(op.responses).map(([s, r]) => '<li><b>' + s + '</b> ' + esc(r.description) + (r.content ? Object.values(r.content).map((c) => c.schema ? pre(c.schema) : '').join('') : '') + '</li>').join('') + '</ul></details>';
    }
  }
  document.getElementById('ops').innerHTML = html;
}).catch((err) => { document.getElementById('intro').textContent = 'Could not load /openapi.json: ' + err; });
</script></body></html>
`;
