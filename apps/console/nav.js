// Navigation and scope, shared by the views (kept apart from app.js, which imports the views).
import { ApiError, session } from './api.js';
import { notice } from './dom.js';

/** `#/path?a=b` → { path: '/path', params } */
export function here() {
  const [path, q = ''] = (window.location.hash.slice(1) || '/users').split('?');
  return { path, params: new URLSearchParams(q) };
}

/** Navigates to a view, with the given query (empty values left out). */
export function go(path, params = {}) {
  const q = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== ''));
  const s = q.toString();
  window.location.hash = `#${path}${s ? `?${s}` : ''}`;
}

/** Sets the scope (e.g. from the users view) and shows it in the header form. */
export function setScope(scope) {
  session.scope = { ...session.scope, ...scope };
  const form = document.getElementById('scope');
  form.user_id.value = session.scope.user_id;
  form.dataset.value = session.scope.dataset;
}

/** The scope as API parameters (empty values left out by query()). */
export function scopeParams() {
  const { user_id, dataset } = session.scope;
  return { user_id, dataset };
}

/** What an error means to the person looking at the page. */
export function failure(err) {
  if (err instanceof ApiError && err.status === 401) return notice('This instance needs an API key: enter it above.', 'error');
  if (err instanceof ApiError && err.status === 403) return notice('This view needs an admin key (MEMLOOM_ADMIN_KEYS).', 'error');
  return notice(err instanceof Error ? err.message : String(err), 'error');
}

/** Runs an action from a button: disables it meanwhile, shows the error in `status`. */
export async function act(button, status, fn) {
  button.disabled = true;
  try {
    await fn();
  } catch (err) {
    status.replaceChildren(failure(err));
  } finally {
    button.disabled = false;
  }
}
