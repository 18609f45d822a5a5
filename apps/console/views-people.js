// Users and sessions: who the memory is about, their counts, recent sessions and their events,
// and forgetting a session or a user (after a confirmation that says what goes).
import { api, session } from './api.js';
import { confirmDialog, h, notice, num, pager, time } from './dom.js';
import { act, go, setScope } from './nav.js';

const PAGE = 20;

export async function usersView(userId) {
  const { dataset } = session.scope;
  const users = pager(
    async (cursor) => {
      const page = await api('/v1/users', { params: { dataset, limit: PAGE, cursor } });
      return { items: page.users, next: page.next_cursor };
    },
    (u) =>
      h(
        'tr',
        { class: u.user_id === userId ? 'selected' : undefined },
        h('th', { scope: 'row' }, h('a', { href: `#/users/${encodeURIComponent(u.user_id)}` }, u.user_id)),
        h('td', { class: 'n' }, num(u.sessions)),
        h('td', { class: 'n' }, num(u.events)),
        h('td', { class: 'n' }, num(u.memories)),
        h('td', {}, time(u.last_event_at)),
      ),
    { empty: 'No user has sent an event yet.', more: 'More users', container: () => table(['User', 'Sessions', 'Events', 'Memories', 'Last event']) },
  );
  await users.ready;
  const parts = [h('h1', {}, 'Users and sessions'), h('section', { 'aria-labelledby': 'users-h' }, h('h2', { id: 'users-h' }, 'Users'), users.el)];
  if (userId) {
    setScope({ user_id: userId });
    parts.push(await sessionsSection(userId, dataset));
  }
  return h('div', { class: 'view people' }, parts);
}

/** A <table> whose body the pager fills. */
function table(headings) {
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
          headings.map((x) => h('th', { scope: 'col' }, x)),
        ),
      ),
      h('tbody'),
    ),
  );
}

async function sessionsSection(userId, dataset) {
  const status = h('div', { role: 'status' });
  const forgetUser = h('button', { type: 'button', class: 'danger' }, 'Forget this user…');
  forgetUser.addEventListener('click', () =>
    act(forgetUser, status, async () => {
      const { users } = await api('/v1/users', { params: { user_id: userId, dataset, limit: 1 } });
      const u = users[0];
      const ok = await confirmDialog(`Forget user ${userId}?`, [
        `${num(u?.events ?? 0)} events in ${num(u?.sessions ?? 0)} sessions`,
        `${num(u?.memories ?? 0)} active memories, their versions, chunks and vectors`,
        'their working memory, and entities and edges no other event supports',
        'This cannot be undone.',
      ]);
      if (!ok) return;
      const removed = await api('/v1/forget', { method: 'POST', body: { user_id: userId } });
      status.replaceChildren(notice(`Forgotten: ${summary(removed)}.`));
      setScope({ user_id: '' });
      go('/users');
    }),
  );
  const sessions = pager(
    async (cursor) => {
      const page = await api('/v1/sessions', { params: { user_id: userId, dataset, limit: PAGE, cursor } });
      return { items: page.sessions, next: page.next_cursor };
    },
    (s) => sessionItem(s, status),
    { empty: 'No sessions.', more: 'More sessions' },
  );
  await sessions.ready;
  return h(
    'section',
    { 'aria-labelledby': 'sessions-h' },
    h(
      'div',
      { class: 'row spread' },
      h('h2', { id: 'sessions-h' }, `Sessions of ${userId}`),
      h('div', { class: 'row' }, h('a', { class: 'button secondary', href: '#/memories' }, 'Memories'), forgetUser),
    ),
    status,
    sessions.el,
  );
}

function summary(removed) {
  if (removed.nothing_to_forget) return 'nothing was left to forget';
  const parts = ['events', 'chunks', 'memories', 'entities', 'edges'].filter((k) => removed[k]).map((k) => `${num(removed[k])} ${k}`);
  return parts.length > 0 ? parts.join(', ') : 'nothing';
}

function sessionItem(s, status) {
  const events = h('div', { class: 'events' });
  const toggle = h('button', { type: 'button', class: 'secondary', 'aria-expanded': 'false' }, 'Show events');
  toggle.addEventListener('click', async () => {
    const open = toggle.getAttribute('aria-expanded') === 'true';
    toggle.setAttribute('aria-expanded', String(!open));
    toggle.textContent = open ? 'Show events' : 'Hide events';
    if (open) return events.replaceChildren();
    const list = pager(
      async (cursor) => {
        const page = await api('/v1/events', { params: { session_id: s.session_id, user_id: s.user_id ?? undefined, limit: PAGE, cursor } });
        return { items: page.events, next: page.next_cursor };
      },
      (e) =>
        h(
          'li',
          { class: 'event' },
          h(
            'div',
            { class: 'meta' },
            time(e.occurred_at),
            ' · ',
            e.type,
            e.role ? ` · ${e.role}` : '',
            ' · ',
            h('span', { class: `badge ${e.status}` }, e.status),
          ),
          h('p', { class: 'content' }, e.content),
        ),
      { empty: 'No events.', more: 'More events' },
    );
    events.replaceChildren(list.el);
    await list.ready;
  });
  const forget = h('button', { type: 'button', class: 'danger' }, 'Forget session…');
  const item = h(
    'li',
    { class: 'session card', dataset: { session: s.session_id } },
    h('div', { class: 'row spread' }, h('h3', {}, s.session_id), h('div', { class: 'row' }, toggle, forget)),
    h(
      'p',
      { class: 'meta' },
      `${num(s.events)} events · ${num(s.memories)} memories · `,
      time(s.first_event_at),
      ' – ',
      time(s.last_event_at),
      s.dataset !== 'default' ? ` · dataset ${s.dataset}` : '',
    ),
    events,
  );
  forget.addEventListener('click', () =>
    act(forget, status, async () => {
      const ok = await confirmDialog(`Forget session ${s.session_id}?`, [
        `${num(s.events)} events of ${s.user_id ?? 'no user'} and their chunks and vectors`,
        `${num(s.memories)} active memories drawn from them (and their older versions)`,
        'entities and edges no other event supports',
        'This cannot be undone.',
      ]);
      if (!ok) return;
      const removed = await api('/v1/forget', {
        method: 'POST',
        body: s.user_id ? { session_id: s.session_id, user_id: s.user_id } : { session_id: s.session_id },
      });
      status.replaceChildren(notice(`Session ${s.session_id} forgotten: ${summary(removed)}.`));
      item.remove();
    }),
  );
  return item;
}
