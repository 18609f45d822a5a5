// The console's only way to read or change data: the public HTTP API, with the key the user
// entered (kept in sessionStorage, so it ends with the tab). The tenant comes from the key.

const KEY = 'memloom.key';
const SCOPE = 'memloom.scope';

export const session = {
  get key() {
    return sessionStorage.getItem(KEY) ?? '';
  },
  set key(value) {
    if (value) sessionStorage.setItem(KEY, value);
    else sessionStorage.removeItem(KEY);
  },
  /** The user (and dataset) the views look at; '' for every user. */
  get scope() {
    try {
      return { user_id: '', dataset: '', ...JSON.parse(sessionStorage.getItem(SCOPE) ?? '{}') };
    } catch {
      return { user_id: '', dataset: '' };
    }
  },
  set scope(value) {
    sessionStorage.setItem(SCOPE, JSON.stringify(value));
  },
};

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code ?? 'HTTP_ERROR';
    this.details = body?.error?.details;
  }
}

/** Query string of the defined, non-empty values. */
export function query(params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** One API call: JSON in and out (text for text/markdown), the key as a bearer token. */
export async function api(path, { method = 'GET', body, params, raw = false } = {}) {
  const headers = {};
  if (session.key) headers.authorization = `Bearer ${session.key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${path}${query(params)}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (raw) return res;
  const type = res.headers.get('content-type') ?? '';
  const payload = type.includes('json') ? await res.json() : await res.text();
  if (!res.ok) throw new ApiError(res.status, payload);
  return payload;
}
