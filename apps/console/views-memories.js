// Memories: search (recall with its score components) or browse (filters, pages); one memory's
// page (versions as a timeline, provenance, relations, entities) with its actions; conflicts.
import { api, session } from './api.js';
import { confirmDialog, h, notice, pager, short, time, when } from './dom.js';
import { act, go, here, scopeParams } from './nav.js';

const KINDS = ['fact', 'preference', 'decision', 'plan', 'procedure', 'profile', 'episode', 'insight'];
const MODES = ['memories', 'chunks', 'graph', 'auto'];
const STATUSES = ['active', 'superseded', 'archived', 'all'];
const SCORES = ['relevance', 'vector', 'keyword', 'entity', 'graph', 'freshness', 'importance', 'boost'];
const PAGE = 25;

/** A date input's value (YYYY-MM-DD) as the start of that day in UTC. */
const dayStart = (d) => (d ? `${d}T00:00:00Z` : undefined);
/** The day after a date input's value: `until` is exclusive, so the whole day is in. */
const dayAfter = (d) => (d ? new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString() : undefined);

function select(name, label, options, value) {
  return h(
    'label',
    {},
    label,
    h(
      'select',
      { name },
      options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)),
    ),
  );
}

export async function memoriesView() {
  const p = here().params;
  const f = {
    q: p.get('q') ?? '',
    mode: p.get('mode') ?? 'memories',
    kind: p.get('kind') ?? '',
    status: p.get('status') ?? 'active',
    since: p.get('since') ?? '',
    until: p.get('until') ?? '',
  };
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Search memories' },
    h('label', { class: 'grow' }, 'Search', h('input', { name: 'q', type: 'search', value: f.q, placeholder: 'a question, or leave empty to browse' })),
    select(
      'mode',
      'Recall mode',
      MODES.map((m) => [m, m]),
      f.mode,
    ),
    select('kind', 'Kind', [['', 'any kind'], ...KINDS.map((k) => [k, k])], f.kind),
    select(
      'status',
      'Status',
      STATUSES.map((s) => [s, s]),
      f.status,
    ),
    h('label', {}, 'Said from', h('input', { name: 'since', type: 'date', value: f.since })),
    h('label', {}, 'until', h('input', { name: 'until', type: 'date', value: f.until })),
    h('button', { type: 'submit' }, 'Search'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const d = new FormData(form);
    go('/memories', Object.fromEntries(['q', 'mode', 'kind', 'status', 'since', 'until'].map((k) => [k, String(d.get(k) ?? '').trim()])));
  });
  const scope = session.scope.user_id ? `of ${session.scope.user_id}` : 'of every user';
  const body = f.q ? await recallResults(f) : await memoryList(f);
  return h('div', { class: 'view memories' }, h('h1', {}, `Memories ${scope}`), form, body);
}

async function memoryList(f) {
  const list = pager(
    async (cursor) => {
      const page = await api('/v1/memories', {
        params: { ...scopeParams(), kind: f.kind, status: f.status, since: dayStart(f.since), until: dayAfter(f.until), limit: PAGE, cursor },
      });
      return { items: page.memories, next: page.next_cursor };
    },
    memoryItem,
    { empty: 'No memory matches these filters.', more: 'Next page' },
  );
  await list.ready;
  return h('section', { 'aria-label': 'Memories, newest first' }, list.el);
}

function memoryItem(m) {
  return h(
    'li',
    { class: 'memory card' },
    h('a', { href: `#/memory/${m.id}`, class: 'content' }, m.content),
    h(
      'p',
      { class: 'meta' },
      h('span', { class: `badge ${m.status}` }, m.status),
      ` ${m.kind} · importance ${m.importance} · v${m.version} · said `,
      time(m.occurred_at),
      m.user_id ? ` · ${m.user_id}` : '',
    ),
  );
}

async function recallResults(f) {
  const body = {
    query: f.q,
    mode: f.mode,
    limit: 20,
    ...Object.fromEntries(Object.entries(scopeParams()).filter(([, v]) => v)),
    ...(f.kind ? { kinds: [f.kind] } : {}),
    ...(f.since ? { since: dayStart(f.since) } : {}),
    ...(f.until ? { until: dayAfter(f.until) } : {}),
    ...(f.status !== 'active' ? { include_history: true } : {}),
  };
  const answer = await api('/v1/recall', { method: 'POST', body });
  const status = h('div', { role: 'status' });
  const rate = (score, label) => {
    const b = h('button', { type: 'button', class: 'secondary' }, label);
    b.addEventListener('click', () =>
      act(b, status, async () => {
        await api('/v1/feedback', { method: 'POST', body: { recall_id: answer.recall_id, score } });
        status.replaceChildren(notice(`Marked ${label.toLowerCase()}: thank you.`));
      }),
    );
    return b;
  };
  return h(
    'section',
    { class: 'recall', 'aria-label': 'Search results', dataset: { recallId: answer.recall_id } },
    h(
      'div',
      { class: 'row spread' },
      h('p', { class: 'meta' }, `Match ${answer.match} · ${answer.results.length} results · ${Math.round(answer.took_ms)} ms`),
      h('div', { class: 'row' }, 'Was this a good answer?', rate(5, 'Good'), rate(1, 'Poor')),
    ),
    status,
    answer.results.length === 0 ? notice('Nothing stored answers this.') : h('ol', { class: 'list results' }, answer.results.map(resultItem)),
  );
}

function resultItem(r) {
  const link = r.type === 'memory' ? h('a', { href: `#/memory/${r.id}`, class: 'content' }, r.content) : h('p', { class: 'content' }, r.content);
  return h(
    'li',
    { class: 'result card', dataset: { id: r.id, type: r.type } },
    link,
    h(
      'p',
      { class: 'meta' },
      h('span', { class: `badge ${r.current ? 'active' : 'superseded'}` }, r.current ? 'current' : 'replaced'),
      ` ${r.type}${r.kind ? ` · ${r.kind}` : ''} · said `,
      time(r.occurred_at),
    ),
    h(
      'dl',
      { class: 'scores', 'aria-label': 'Score components' },
      h('div', { class: 'total' }, h('dt', {}, 'score'), h('dd', {}, r.score.toFixed(3))),
      SCORES.filter((k) => typeof r.scores?.[k] === 'number').map((k) => h('div', {}, h('dt', {}, k), h('dd', {}, r.scores[k].toFixed(3)))),
    ),
  );
}

/** Why a version left the chain: several predecessors of one version is a merge, a version written by `correct` a correction. */
function reasonFor(version, versions, detail) {
  const successor = versions.find((v) => v.id === version.superseded_by);
  if (!successor) return 'superseded';
  if (versions.filter((v) => v.superseded_by === successor.id).length > 1) return 'merge';
  const rel = detail.relations.find((r) => r.other_memory_id === version.id && r.relation === 'replaces' && r.direction === 'out');
  if (successor.id === detail.id && detail.provenance.runs.some((run) => run.stage === 'correct')) return 'correction';
  if (rel && !rel.is_progression) return 'chosen over it';
  return 'supersession (a newer statement)';
}

export async function memoryView(id) {
  const m = await api(`/v1/memories/${id}`);
  const status = h('div', { role: 'status' });
  const actions = h('div', { class: 'row actions' });
  if (m.status === 'active') {
    const editor = h('textarea', { name: 'content', rows: 3, required: true, 'aria-label': 'Corrected content' }, m.content);
    const save = h('button', { type: 'submit' }, 'Save as a new version');
    const form = h('form', { class: 'correct', 'aria-label': 'Correct this memory' }, h('label', { for: 'fix' }, 'Correct it'), editor, save);
    editor.id = 'fix';
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      act(save, status, async () => {
        const v = await api(`/v1/memories/${id}`, { method: 'PATCH', body: { content: editor.value } });
        go(`/memory/${v.id}`);
      });
    });
    actions.append(form);
  }
  if (m.status === 'archived') {
    const restore = h('button', { type: 'button' }, 'Restore');
    restore.addEventListener('click', () =>
      act(restore, status, async () => {
        await api(`/v1/memories/${id}/restore`, { method: 'POST' });
        go(`/memory/${id}`, { restored: Date.now() });
      }),
    );
    actions.append(restore);
  }
  const del = h('button', { type: 'button', class: 'danger' }, 'Delete…');
  del.addEventListener('click', () =>
    act(del, status, async () => {
      const ok = await confirmDialog('Delete this memory for good?', [
        `“${m.content}”`,
        'its vector and links; the events it came from stay',
        'This cannot be undone.',
      ]);
      if (!ok) return;
      await api(`/v1/memories/${id}`, { method: 'DELETE' });
      go('/memories');
    }),
  );
  actions.append(del);

  return h(
    'article',
    { class: 'view memory-page', 'aria-labelledby': 'memory-h' },
    h('p', { class: 'crumbs' }, h('a', { href: '#/memories' }, '← Memories')),
    h('h1', { id: 'memory-h', class: 'content' }, m.content),
    h(
      'p',
      { class: 'meta' },
      h('span', { class: `badge ${m.status}` }, m.status),
      ` ${m.kind} · importance ${m.importance} · confidence ${Number(m.confidence).toFixed(2)} · version ${m.version} · `,
      m.user_id ? h('a', { href: `#/users/${encodeURIComponent(m.user_id)}` }, m.user_id) : 'no user',
      m.session_id ? ` · session ${m.session_id}` : '',
    ),
    status,
    actions,
    h('section', { 'aria-labelledby': 'versions-h' }, h('h2', { id: 'versions-h' }, 'Versions'), timeline(m)),
    h('section', { 'aria-labelledby': 'prov-h' }, h('h2', { id: 'prov-h' }, 'Where it comes from'), provenance(m)),
    h('section', { 'aria-labelledby': 'rel-h' }, h('h2', { id: 'rel-h' }, 'Relations'), relations(m)),
    h('section', { 'aria-labelledby': 'ent-h' }, h('h2', { id: 'ent-h' }, 'Entities'), entities(m)),
  );
}

function timeline(m) {
  if (m.versions.length === 0) return notice('No versions.');
  return h(
    'ol',
    { class: 'timeline' },
    m.versions.map((v) =>
      h(
        'li',
        { class: v.id === m.id ? 'here' : undefined, 'aria-current': v.id === m.id ? 'true' : undefined },
        h(
          'div',
          { class: 'meta' },
          h('strong', {}, `v${v.version}`),
          ' · ',
          h('span', { class: `badge ${v.status}` }, v.status),
          ' · valid ',
          when(v.valid_from),
          ' → ',
          v.valid_to ? when(v.valid_to) : 'now',
        ),
        v.id === m.id ? h('p', { class: 'content' }, v.content) : h('a', { class: 'content', href: `#/memory/${v.id}` }, v.content),
        v.superseded_by
          ? h('p', { class: 'why' }, `Replaced by v${m.versions.find((x) => x.id === v.superseded_by)?.version ?? '?'}: ${reasonFor(v, m.versions, m)}`)
          : '',
      ),
    ),
  );
}

function provenance(m) {
  const { events, runs } = m.provenance;
  return h(
    'div',
    {},
    events.length === 0
      ? notice('No source event (its events were forgotten).')
      : h(
          'ul',
          { class: 'list' },
          events.map((e) =>
            h(
              'li',
              {},
              time(e.occurred_at),
              ` · ${e.type} via ${e.source} · event ${short(e.id)}`,
              e.session_id && m.user_id ? [' · ', h('a', { href: `#/users/${encodeURIComponent(m.user_id)}` }, `session ${e.session_id}`)] : '',
            ),
          ),
        ),
    runs.length > 0
      ? h('p', { class: 'meta' }, 'Written by: ', runs.map((r) => `${r.stage}${r.model ? ` (${r.model})` : ''} ${when(r.started_at)}`).join('; '))
      : '',
  );
}

function relations(m) {
  if (m.relations.length === 0) return notice('No relations.');
  return h(
    'ul',
    { class: 'list' },
    m.relations.map((r) =>
      h(
        'li',
        {},
        h('span', { class: `badge rel-${r.relation}` }, r.direction === 'out' ? r.relation : `${r.relation} (by)`),
        ' ',
        h('a', { href: `#/memory/${r.other_memory_id}` }, r.other_content),
        ` (${r.other_status})`,
      ),
    ),
  );
}

function entities(m) {
  if (m.entities.length === 0) return notice('No entities.');
  return h(
    'ul',
    { class: 'chips' },
    m.entities.map((e) => h('li', {}, h('a', { href: `#/graph/${e.id}` }, e.name), ` ${e.type}${e.is_subject ? ' · subject' : ''}`)),
  );
}

/** Open conflicts (two active memories in a `challenges` relation), side by side, with a choice. */
export async function conflictsView() {
  const status = h('div', { role: 'status' });
  const seen = new Set();
  const list = pager(
    async (cursor) => {
      const page = await api('/v1/memories', { params: { ...scopeParams(), conflicts: 'true', limit: 10, cursor } });
      const details = await Promise.all(page.memories.map((m) => api(`/v1/memories/${m.id}`)));
      const byId = new Map(details.map((d) => [d.id, d]));
      const pairs = [];
      for (const d of details) {
        for (const r of d.relations) {
          if (r.relation !== 'challenges' || r.other_status !== 'active') continue;
          const key = [d.id, r.other_memory_id].sort().join('/');
          if (seen.has(key)) continue;
          seen.add(key);
          // Both sides with when they were said: the other is on this page, or read once.
          pairs.push([d, byId.get(r.other_memory_id) ?? (await api(`/v1/memories/${r.other_memory_id}`))]);
        }
      }
      return { items: pairs, next: page.next_cursor };
    },
    ([a, b]) => conflictItem(a, b, status),
    { empty: 'No open conflicts.', more: 'More conflicts' },
  );
  await list.ready;
  return h(
    'div',
    { class: 'view conflicts' },
    h('h1', {}, 'Conflicts to settle'),
    h('p', { class: 'lead' }, 'Memories that contradict each other stay side by side until a person chooses: the one you keep supersedes the other.'),
    status,
    list.el,
  );
}

function conflictItem(a, b, status) {
  const item = h('li', { class: 'conflict' });
  const side = (keep, drop) => {
    const button = h('button', { type: 'button' }, 'Keep this one');
    button.addEventListener('click', () =>
      act(button, status, async () => {
        await api(`/v1/memories/${drop.id}/supersede`, { method: 'POST', body: { by: keep.id } });
        status.replaceChildren(notice(`Kept “${keep.content}”; the other is superseded.`));
        item.remove();
      }),
    );
    return h(
      'div',
      { class: 'card side' },
      h('a', { class: 'content', href: `#/memory/${keep.id}` }, keep.content),
      h('p', { class: 'meta' }, `${keep.kind} · said `, time(keep.occurred_at), ` · confidence ${Number(keep.confidence).toFixed(2)}`),
      button,
    );
  };
  item.append(side(a, b), h('span', { class: 'vs', 'aria-hidden': 'true' }, 'vs'), side(b, a));
  return item;
}
