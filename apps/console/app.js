// The console's shell: the key and scope forms, and a hash router that draws one view into <main>.
import { session } from './api.js';
import { fill, h, notice } from './dom.js';
import { failure, here } from './nav.js';
import { graphView, workingMemoryView } from './views-graph.js';
import { healthView } from './views-health.js';
import { conflictsView, memoriesView, memoryView } from './views-memories.js';
import { usersView } from './views-people.js';

const ROUTES = [
  [/^\/users$/, () => usersView()],
  [/^\/users\/([^/]+)$/, (m) => usersView(decodeURIComponent(m[1]))],
  [/^\/memories$/, () => memoriesView()],
  [/^\/memory\/([0-9a-f-]{36})$/, (m) => memoryView(m[1])],
  [/^\/conflicts$/, () => conflictsView()],
  [/^\/graph(?:\/([0-9a-f-]{36}))?$/, (m) => graphView(m[1])],
  [/^\/working-memory$/, () => workingMemoryView()],
  [/^\/health$/, () => healthView()],
];

const main = document.getElementById('view');

async function render() {
  const { path } = here();
  for (const link of document.querySelectorAll('#nav a')) {
    const here = link.getAttribute('href') === `#${path}` || (path.startsWith('/memory/') && link.getAttribute('href') === '#/memories');
    if (here) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const route = ROUTES.find(([re]) => re.test(path));
  if (!route) return fill(main, notice(`No view ${path}`, 'error'));
  fill(main, h('p', { class: 'notice', role: 'status' }, 'Loading…'));
  try {
    const view = await route[1](route[0].exec(path));
    if (here().path === path) fill(main, view);
  } catch (err) {
    fill(main, failure(err));
  }
}

function setupForms() {
  const scopeForm = document.getElementById('scope');
  const keyForm = document.getElementById('key');
  scopeForm.user_id.value = session.scope.user_id;
  scopeForm.dataset.value = session.scope.dataset;
  scopeForm.addEventListener('submit', (e) => {
    e.preventDefault();
    session.scope = { user_id: scopeForm.user_id.value.trim(), dataset: scopeForm.dataset.value.trim() };
    render();
  });
  keyForm.key.value = session.key;
  keyForm.addEventListener('submit', (e) => {
    e.preventDefault();
    session.key = keyForm.key.value.trim();
    render();
  });
}

setupForms();
window.addEventListener('hashchange', render);
render();
