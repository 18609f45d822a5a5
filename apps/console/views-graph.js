// An entity's neighbourhood as a picture (SVG, depth 1–3, in the user's graph) and the user's
// working memory rendered from its Markdown.
import { api, session } from './api.js';
import { fill, h, markdown, notice, when } from './dom.js';
import { go, here, scopeParams } from './nav.js';

const SVG = 'http://www.w3.org/2000/svg';

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

export async function graphView(id) {
  const p = here().params;
  const q = p.get('q') ?? '';
  const depth = Number(p.get('depth') ?? 1);
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Find an entity' },
    h('label', { class: 'grow' }, 'Entity', h('input', { name: 'q', type: 'search', value: q, placeholder: 'a name: a person, a tool, a place' })),
    h(
      'label',
      {},
      'Depth',
      h(
        'select',
        { name: 'depth' },
        [1, 2, 3].map((d) => h('option', { value: d, selected: d === depth }, String(d))),
      ),
    ),
    h('button', { type: 'submit' }, 'Show'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const d = new FormData(form);
    go(id ? `/graph/${id}` : '/graph', { q: String(d.get('q') ?? '').trim(), depth: d.get('depth') });
  });
  const found = await api('/v1/graph/entities', { params: { ...scopeParams(), q, limit: 20 } });
  const choices = h(
    'ul',
    { class: 'chips', 'aria-label': 'Entities' },
    found.entities.map((e) =>
      h(
        'li',
        {},
        h('a', { href: `#/graph/${e.id}?depth=${depth}&q=${encodeURIComponent(q)}`, 'aria-current': e.id === id ? 'true' : undefined }, e.name),
        ` ${e.type}`,
      ),
    ),
  );
  const parts = [
    h('h1', {}, `Graph${session.scope.user_id ? ` of ${session.scope.user_id}` : ''}`),
    form,
    found.entities.length ? choices : notice('No entity matches.'),
  ];
  if (id) parts.push(await neighbourhood(id, depth));
  return h('div', { class: 'view graph' }, parts);
}

async function neighbourhood(id, depth) {
  const g = await api(`/v1/graph/entities/${id}`, { params: { ...scopeParams(), depth } });
  return h(
    'section',
    { 'aria-labelledby': 'hood-h' },
    h('h2', { id: 'hood-h' }, `${g.entity.name} and its neighbours (depth ${g.depth})`),
    picture(g),
    h(
      'details',
      {},
      h('summary', {}, `${g.edges.length} edges as a table`),
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          {},
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['From', 'Relation', 'To', 'Description'].map((x) => h('th', { scope: 'col' }, x)),
            ),
          ),
          h(
            'tbody',
            {},
            g.edges.map((e) => {
              const name = (nid) => g.nodes.find((n) => n.id === nid)?.name ?? nid;
              return h('tr', {}, h('td', {}, name(e.source_id)), h('td', {}, e.relation), h('td', {}, name(e.target_id)), h('td', {}, e.description));
            }),
          ),
        ),
      ),
    ),
  );
}

/** Rings by depth around the entity; each ring's nodes evenly spaced, ordered by their parent's angle to limit crossings. */
function layout(g) {
  // Rings for the depths that have nodes: a lone entity gets a small picture, not an empty one.
  const rings = Math.max(0, ...g.nodes.map((n) => n.depth));
  const size = Math.min(640, 160 + 240 * rings);
  const c = size / 2;
  const ring = (c - 70) / Math.max(1, rings);
  const pos = new Map([[g.entity.id, { x: c, y: c, angle: 0 }]]);
  const byDepth = new Map();
  for (const n of g.nodes) if (n.depth > 0) byDepth.set(n.depth, [...(byDepth.get(n.depth) ?? []), n]);
  for (const d of [...byDepth.keys()].sort()) {
    const parentAngle = (n) => {
      const near = g.edges.map((e) => (e.source_id === n.id ? e.target_id : e.target_id === n.id ? e.source_id : undefined)).filter((x) => pos.has(x));
      return near.length ? pos.get(near[0]).angle : 0;
    };
    const nodes = byDepth.get(d).sort((a, b) => parentAngle(a) - parentAngle(b));
    nodes.forEach((n, i) => {
      const angle = (2 * Math.PI * i) / nodes.length + d * 0.4;
      pos.set(n.id, { x: c + ring * d * Math.cos(angle), y: c + ring * d * Math.sin(angle), angle });
    });
  }
  return { size, pos };
}

function picture(g) {
  const { size, pos } = layout(g);
  const svg = s('svg', { viewBox: `0 0 ${size} ${size}`, role: 'img', 'aria-labelledby': 'graph-title', class: 'graph-svg' });
  svg.append(s('title', { id: 'graph-title' }, `${g.entity.name}: ${g.nodes.length} entities, ${g.edges.length} edges`));
  for (const e of g.edges) {
    const a = pos.get(e.source_id);
    const b = pos.get(e.target_id);
    if (!a || !b) continue;
    svg.append(
      s(
        'g',
        { class: 'edge' },
        s('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y }),
        s('text', { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 4, 'text-anchor': 'middle' }, e.relation),
        s('title', {}, e.description || e.relation),
      ),
    );
  }
  for (const n of g.nodes) {
    const p = pos.get(n.id);
    if (!p) continue;
    const link = s(
      'a',
      { href: `#/graph/${n.id}?depth=${g.depth}`, class: `node depth-${n.depth}` },
      s('circle', { cx: p.x, cy: p.y, r: n.depth === 0 ? 14 : 9 }),
      s('text', { x: p.x, y: p.y + (n.depth === 0 ? 30 : 24), 'text-anchor': 'middle' }, n.name),
      s('title', {}, `${n.name} (${n.type})`),
    );
    svg.append(link);
  }
  return h('figure', { class: 'graph-figure' }, svg, h('figcaption', {}, 'Select an entity to centre the picture on it.'));
}

export async function workingMemoryView() {
  const { user_id } = session.scope;
  const head = h('h1', {}, `Working memory${user_id ? ` of ${user_id}` : ' (memories without a user)'}`);
  const res = await api('/v1/working-memory', { params: { user_id }, raw: true });
  if (res.status === 404) return h('div', { class: 'view' }, head, notice('No working memory yet: it is built once memories settle. Pick a user above.'));
  if (!res.ok) {
    const body = await res.json().catch(() => ({}));
    return h('div', { class: 'view' }, head, notice(body?.error?.message ?? `HTTP ${res.status}`, 'error'));
  }
  const text = await res.text();
  const built = res.headers.get('last-modified');
  const body = h('div', { class: 'card' });
  fill(body, markdown(text));
  return h('div', { class: 'view working-memory' }, head, h('p', { class: 'meta' }, built ? `Built ${when(built)}` : ''), body);
}
