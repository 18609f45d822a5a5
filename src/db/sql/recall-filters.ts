/** Collects positional parameters while SQL text is built. */
export class Params {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

export interface RecallScope {
  userId?: string | undefined;
  agentId?: string | undefined;
  sessionId?: string | undefined;
  dataset?: string | undefined;
  kinds?: string[] | undefined;
  since?: string | undefined;
  until?: string | undefined;
  asOf?: string | undefined;
  includeHistory?: boolean | undefined;
}

/** WHERE conditions on memories (alias `m`): scope, event time window, validity (history, as_of, expiry). */
export function memoryConditions(f: RecallScope, p: Params): string[] {
  const c = scopeConditions(f, p, 'm');
  if (f.kinds && f.kinds.length > 0) c.push(`m.kind = ANY(${p.add(f.kinds)}::text[])`);
  const eventTime = 'coalesce(m.event_time, m.occurred_at)';
  if (f.since) c.push(`${eventTime} >= ${p.add(f.since)}::timestamptz`);
  if (f.until) c.push(`${eventTime} <= ${p.add(f.until)}::timestamptz`);
  if (f.asOf) {
    const t = p.add(f.asOf);
    c.push(`m.valid_from <= ${t}::timestamptz AND (m.superseded_at IS NULL OR m.superseded_at > ${t}::timestamptz)`);
    c.push(`(m.expires_at IS NULL OR m.expires_at > ${t}::timestamptz)`);
  } else {
    if (!f.includeHistory) c.push(`m.status = 'active'`);
    c.push('(m.expires_at IS NULL OR m.expires_at > now())');
  }
  return c;
}

/** WHERE conditions on chunks (alias `c`): scope and event time window. */
export function chunkConditions(f: RecallScope, p: Params): string[] {
  const c = scopeConditions(f, p, 'c');
  if (f.since) c.push(`c.occurred_at >= ${p.add(f.since)}::timestamptz`);
  if (f.until) c.push(`c.occurred_at <= ${p.add(f.until)}::timestamptz`);
  return c;
}

function scopeConditions(f: RecallScope, p: Params, alias: string): string[] {
  const c: string[] = [];
  if (f.userId !== undefined) c.push(`${alias}.user_id = ${p.add(f.userId)}`);
  if (f.agentId !== undefined) c.push(`${alias}.agent_id = ${p.add(f.agentId)}`);
  if (f.sessionId !== undefined) c.push(`${alias}.session_id = ${p.add(f.sessionId)}`);
  if (f.dataset !== undefined) c.push(`${alias}.dataset = ${p.add(f.dataset)}`);
  return c;
}

export function where(conditions: string[]): string {
  return conditions.length > 0 ? conditions.join(' AND ') : 'true';
}

/** An OR tsquery from pre-tokenised terms (see ftsQuery); terms that parse to nothing are dropped. */
export function tsqueryOf(p: Params, terms: string[]): string {
  return `(SELECT string_agg(q::text, ' | ')::tsquery FROM (SELECT plainto_tsquery('simple', t) AS q FROM unnest(${p.add(terms)}::text[]) t) x WHERE q::text <> '')`;
}
