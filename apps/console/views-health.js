// Health: pending events per stage, dead letters with their reasons and a retry button, token
// budgets, and the way to Bull Board (which needs an admin key once keys are configured).
import { api } from './api.js';
import { h, notice, num, pager, time } from './dom.js';
import { act } from './nav.js';

const COUNTS = ['waiting', 'active', 'delayed', 'failed', 'completed'];

export async function healthView() {
  const [stats, budget] = await Promise.all([api('/v1/stats'), api('/v1/budget')]);
  const status = h('div', { role: 'status' });
  const dead = pager(
    async (before) => {
      const page = await api('/v1/dead-letters', { params: { limit: 20, before } });
      return { items: page.dead_letters, next: page.next_before };
    },
    (d) => deadLetter(d, status),
    { empty: 'No dead letters.', more: 'Older dead letters' },
  );
  await dead.ready;
  return h(
    'div',
    { class: 'view health' },
    h('h1', {}, 'Health'),
    h('p', { class: 'lead' }, pipelineSummary(stats), ' ', h('a', { href: '/admin/queues' }, 'Bull Board'), ' shows every job (admin key).'),
    h('section', { 'aria-labelledby': 'queues-h' }, h('h2', { id: 'queues-h' }, 'Pipeline stages'), queues(stats)),
    h('section', { 'aria-labelledby': 'objects-h' }, h('h2', { id: 'objects-h' }, 'Stored'), objects(stats.objects)),
    h('section', { 'aria-labelledby': 'budget-h' }, h('h2', { id: 'budget-h' }, 'Token budgets'), budgets(budget)),
    h('section', { 'aria-labelledby': 'dead-h' }, h('h2', { id: 'dead-h' }, 'Dead letters'), status, dead.el),
  );
}

/** One sentence on where the events stand: waiting, failed for good (dead letters), or all through. */
function pipelineSummary(stats) {
  const failed = stats.objects.dead_letters ?? 0;
  const waiting = stats.pending_events === 0 ? 'Nothing is waiting in the pipeline' : `${num(stats.pending_events)} events are still in the pipeline`;
  if (failed === 0) return stats.pending_events === 0 ? 'Every event received so far has been through the pipeline.' : `${waiting}.`;
  return `${waiting}; ${num(failed)} ${failed === 1 ? 'dead letter' : 'dead letters'} below: jobs that failed for good, each with a retry button.`;
}

function queues(stats) {
  if (stats.queues_unavailable) return notice('The queue backend does not answer; stored counts above are still true.', 'error');
  return h(
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
          h('th', { scope: 'col' }, 'Stage'),
          COUNTS.map((c) => h('th', { scope: 'col', class: 'n' }, c)),
        ),
      ),
      h(
        'tbody',
        {},
        Object.entries(stats.queues).map(([name, c]) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, name),
            COUNTS.map((k) => h('td', { class: `n ${k === 'failed' && c[k] ? 'bad' : ''}` }, num(c[k] ?? 0))),
          ),
        ),
      ),
    ),
  );
}

function objects(o) {
  return h(
    'dl',
    { class: 'figures' },
    Object.entries(o).map(([k, v]) => h('div', {}, h('dt', {}, k.replace(/_/g, ' ')), h('dd', {}, num(v)))),
  );
}

function budgets(b) {
  const row = (label, f) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row' }, label),
      f ? [h('td', { class: 'n' }, num(f.used)), h('td', { class: 'n' }, num(f.limit)), h('td', {}, meter(f))] : h('td', { colspan: 3 }, 'not used yet'),
    );
  return h(
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
          ['Window', 'Used', 'Limit', ''].map((x) => h('th', { scope: 'col' }, x)),
        ),
      ),
      h(
        'tbody',
        {},
        row('This tenant, hour', b.tokens.tenant.hour),
        row('This tenant, day', b.tokens.tenant.day),
        row('All tenants, hour', b.tokens.global.hour),
        row('All tenants, day', b.tokens.global.day),
        row('Background tasks', b.tasks),
      ),
    ),
  );
}

function meter(f) {
  return h('meter', { min: 0, max: f.limit || 1, value: f.used, high: (f.limit || 1) * 0.8, 'aria-label': `${num(f.used)} of ${num(f.limit)}` });
}

function deadLetter(d, status) {
  const where = d.source === 'file' ? `${d.file}:${d.line}` : `${d.queue} job ${d.job_id}`;
  const item = h(
    'li',
    { class: 'card dead', dataset: { id: d.id } },
    h('div', { class: 'row spread' }, h('strong', {}, d.code), h('span', { class: 'meta' }, time(d.created_at))),
    h('p', { class: 'meta' }, `${d.source} · ${where}`),
    h('p', { class: 'content' }, d.message),
  );
  if (d.source === 'job') {
    const retried = h('span', { class: 'meta' }, d.retried_at ? ['retried ', time(d.retried_at)] : '');
    const button = h('button', { type: 'button', hidden: Boolean(d.retried_at) }, 'Retry');
    button.addEventListener('click', () =>
      act(button, status, async () => {
        await api(`/v1/dead-letters/${d.id}/retry`, { method: 'POST' });
        button.hidden = true;
        retried.replaceChildren('sent back to the queue');
      }),
    );
    item.append(h('div', { class: 'row' }, button, retried));
  }
  return item;
}
