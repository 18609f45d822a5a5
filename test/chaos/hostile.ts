import fc from 'fast-check';
import type { RawRequest } from '../support/raw-http.js';

/**
 * Generators of what a hostile or careless client sends: every kind of text PostgreSQL or a parser
 * chokes on, in every place a request carries text (path, query string, headers, body).
 */

/** Field names of every input schema: a generated body or query string reaches each field's check. */
export const FIELD_NAMES = [
  'query',
  'content',
  'user_id',
  'agent_id',
  'session_id',
  'dataset',
  'kinds',
  'kind',
  'limit',
  'mode',
  'since',
  'until',
  'as_of',
  'include_history',
  'events',
  'id',
  'type',
  'role',
  'occurred_at',
  'importance',
  'ttl',
  'metadata',
  'recall_id',
  'score',
  'text',
  'event_id',
  'queue',
  'all',
  'q',
  'depth',
  'cursor',
  'status',
  'conflicts',
  'before',
  'source',
  'format',
  'name',
  'arguments',
] as const;

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const control = fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c));
const special = fc.constantFrom(
  '\u0000',
  '\u007f',
  '\u0085',
  '\u2028',
  '\u202e',
  '\ufeff',
  '\uffff',
  '\ufffd',
  '👩‍👩‍👧‍👦',
  '🔥',
  '\u0301',
  'مرحبا بالعالم',
  'שלום',
  '你好世界',
  '日本語のテキスト',
  '한국어',
  'ñ',
  '\\',
  '"',
  "'",
  '%',
  '_',
  '*',
  ':*',
  '&',
  '|',
  '!',
  '<->',
  '(',
  ')',
  "'; DROP TABLE events; --",
  '$1',
  '::uuid',
  'NULL',
  'undefined',
  '__proto__',
  'constructor',
  '../../etc/passwd',
  '..',
  '/',
  ' ',
  '\t',
  '\n',
  '1e400',
  '-0',
  'NaN',
  'Infinity',
  '0000-01-01T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '9999-12-31T23:59:59+14:00',
  '99999-01-01T00:00:00Z',
  'P99999999Y',
  'PT',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  'session:x',
  'user:',
);

/** One hostile string: pieces of the above glued to arbitrary code points, sometimes huge. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.array(fc.oneof(special, loneSurrogate, control, fc.string({ unit: 'binary', maxLength: 8 })), { maxLength: 12 }).map((a) => a.join('')),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 64 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.oneof(special, fc.constant('x'), fc.constant('長')), fc.integer({ min: 200, max: 300_000 }))
      .map(([s, n]) => s.repeat(Math.ceil(n / Math.max(1, s.length)))),
  },
);

/** Any JSON value whose strings are hostile, a few levels deep. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308)),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(hostileString, fc.constantFrom(...FIELD_NAMES)), tie('value'), { maxKeys: 5 }),
  ),
})).value;

/** A body as bytes: mostly JSON objects with the schemas' field names, also broken, deep or huge ones. */
export const hostileBody: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 8, arbitrary: fc.dictionary(fc.constantFrom(...FIELD_NAMES), hostileValue, { maxKeys: 6 }).map((o) => Buffer.from(JSON.stringify(o))) },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.dictionary(fc.constantFrom(...FIELD_NAMES), hostileValue, { maxKeys: 4 }), { maxLength: 5 })
      .map((events) => Buffer.from(JSON.stringify({ events }))),
  },
  { weight: 1, arbitrary: hostileValue.map((v) => Buffer.from(JSON.stringify(v) ?? 'null')) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 256 }).map((a) => Buffer.from(a)) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 200_000 }).map((n) => Buffer.from(`${'['.repeat(n)}${']'.repeat(n)}`)) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1_000, max: 50_000 }).map((n) => Buffer.from(`{"content":"deep","metadata":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`)),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        '{"content":"a","content":"b"}',
        '{"__proto__":{"admin":true},"content":"x"}',
        '\ufeff{"content":"bom"}',
        '{"content":"x"',
        '',
        ' ',
        'null',
        '[]',
        '{"query":1e400}',
      )
      .map((s) => Buffer.from(s)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      Buffer.from([0x7b, 0x22, 0x63, 0xff, 0xfe, 0x22, 0x7d]),
      Buffer.from('{"content":"\xc3\x28"}', 'latin1'),
      Buffer.from('{"content":"\xed\xa0\x80"}', 'latin1'),
    ),
  },
);

// encodeURIComponent throws on a lone surrogate.
const wellFormed = (s: string): string => s.replace(/[\uD800-\uDFFF]/gu, '\uFFFD');

/**
 * A URL component as latin1 text (one char per byte on the wire): percent-encoded UTF-8, every
 * byte escaped, a malformed escape, or raw bytes (invalid UTF-8, spaces and controls included).
 */
export const encodeComponent = (s: string, mode: number): string => {
  if (mode === 0) return encodeURIComponent(wellFormed(s));
  if (mode === 1) return [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  if (mode === 2) return `${encodeURIComponent(wellFormed(s))}%${s.length % 2 === 0 ? 'zz' : 'f'}`;
  if (mode === 3) return `%ff%fe%ed%a0%80${encodeURIComponent(wellFormed(s))}`;
  return Buffer.from(s, 'utf8').toString('latin1');
};

const queryString = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom(...FIELD_NAMES),
        hostileString.map((s) => s.slice(0, 40)),
      ),
      hostileString.map((s) => s.slice(0, 5000)),
      fc.nat(4),
    ),
    { maxLength: 5 },
  )
  .map((pairs) => pairs.map(([k, v, mode]) => `${encodeComponent(k, mode === 1 ? 1 : 0)}=${encodeComponent(v, mode)}`).join('&'));

/** Header values as bytes: the right keys, other tenants' keys, garbage, control bytes, invalid UTF-8. */
const headerValue = (keys: string[]) =>
  fc.oneof(
    fc.constantFrom(...keys.map((k) => `Bearer ${k}`)),
    hostileString.map((s) => s.slice(0, 2000)),
    fc.uint8Array({ minLength: 1, maxLength: 64 }).map((a) => Buffer.from(a).toString('latin1')),
  );

export interface RouteSpec {
  method: string;
  url: string;
}

/** Values for path parameters: real ids from the seeded data, random uuids, or hostile text. */
export function hostileRequest(routes: RouteSpec[], keys: string[], ids: string[]): fc.Arbitrary<RawRequest> {
  const param = fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...ids).map((id) => encodeURIComponent(id)) },
    { weight: 1, arbitrary: fc.uuid().map((u) => u) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          hostileString.map((s) => s.slice(0, 3000)),
          fc.nat(4),
        )
        .map(([s, mode]) => encodeComponent(s, mode)),
    },
  );
  const methods = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT'];
  return fc
    .record({
      route: fc.constantFrom(...routes),
      otherMethod: fc.option(fc.constantFrom(...methods), { freq: 8 }),
      params: fc.array(param, { minLength: 3, maxLength: 3 }),
      query: fc.option(queryString, { freq: 2 }),
      body: fc.option(hostileBody, { freq: 4 }),
      contentType: fc.constantFrom(
        'application/json',
        'application/json',
        'application/json; charset=utf-8',
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/json; charset=latin1',
        '',
      ),
      auth: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...keys.map((k) => `Bearer ${k}`)) }, { weight: 1, arbitrary: headerValue(keys) }),
      extraHeader: fc.option(
        fc.tuple(fc.constantFrom('x-api-key', 'accept', 'x-request-id', 'cookie', 'content-encoding', 'accept-language'), headerValue(keys)),
        { freq: 3 },
      ),
    })
    .map((r) => {
      let i = 0;
      const path = r.route.url.replace(/:[A-Za-z_]+|\*/g, () => r.params[i++ % 3] as string);
      const headers: Array<[string, Buffer | string]> = [['authorization', Buffer.from(r.auth, 'latin1')]];
      if (r.extraHeader) headers.push([r.extraHeader[0], Buffer.from(r.extraHeader[1], 'latin1')]);
      if (r.body && r.contentType) headers.push(['content-type', r.contentType]);
      return {
        method: r.otherMethod ?? r.route.method,
        target: Buffer.from(r.query ? `${path}?${r.query}` : path, 'latin1'),
        headers,
        ...(r.body ? { body: r.body } : {}),
      };
    });
}

/**
 * Valid requests with one or two values swapped for odd text: these get past the schemas and reach
 * the SQL (full-text queries, trigram matches, jsonb), where unusual but valid text used to fail.
 */
const TEMPLATES: Array<{ method: string; url: string; body?: Record<string, unknown>; query?: Record<string, string> }> = [
  {
    method: 'POST',
    url: '/v1/events',
    body: { content: 'We use PostgreSQL.', user_id: 'u-fz', session_id: 'fz-new', role: 'user', type: 'message', metadata: { k: 'v' } },
  },
  { method: 'POST', url: '/v1/recall', body: { query: 'PostgreSQL', user_id: 'u-fz', mode: 'memories', limit: 5 } },
  { method: 'POST', url: '/v1/recall', body: { query: 'PostgreSQL', mode: 'auto' } },
  { method: 'POST', url: '/v1/recall', body: { query: 'PostgreSQL', mode: 'graph', session_id: 'fz-1' } },
  { method: 'POST', url: '/v1/recall', body: { query: 'PostgreSQL', mode: 'chunks', dataset: 'default' } },
  { method: 'GET', url: '/v1/memories', query: { q: 'postgres', user_id: 'u-fz', kind: 'fact', status: 'all' } },
  { method: 'GET', url: '/v1/graph/entities', query: { q: 'postgres', limit: '5' } },
  { method: 'GET', url: '/v1/working-memory', query: { user_id: 'u-fz' } },
  { method: 'GET', url: '/v1/dead-letters', query: { limit: '5', source: 'file' } },
  { method: 'POST', url: '/v1/forget', body: { session_id: 'fz-nothing' } },
  { method: 'POST', url: '/v1/feedback', body: { recall_id: '00000000-0000-4000-8000-000000000000', score: 4, text: 'good' } },
  { method: 'POST', url: '/v1/jobs/retry', body: { queue: 'extract' } },
];

const oddButValid = fc.oneof(
  special.filter((s) => !s.includes('\u0000')),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
  fc.constantFrom('   ', '🔥🔥🔥', 'SELECT * FROM memories', "o'reilly & co | !x", 'a:* & b', '(((', '\\x00', '%%__', 'ゆ'.repeat(5000), 'word '.repeat(2000)),
);

export function templatedRequest(keys: string[]): fc.Arbitrary<RawRequest> {
  return fc
    .record({
      t: fc.constantFrom(...TEMPLATES),
      swaps: fc.array(fc.tuple(fc.nat(20), fc.oneof({ weight: 3, arbitrary: oddButValid }, { weight: 1, arbitrary: hostileValue })), {
        minLength: 1,
        maxLength: 2,
      }),
      key: fc.constantFrom(...keys),
    })
    .map(({ t, swaps, key }) => {
      const values: Record<string, unknown> = { ...(t.body ?? t.query) };
      const names = Object.keys(values);
      for (const [i, v] of swaps) values[names[i % names.length] as string] = v;
      const headers: Array<[string, Buffer | string]> = [['authorization', `Bearer ${key}`]];
      if (t.body) {
        headers.push(['content-type', 'application/json']);
        return { method: t.method, target: t.url, headers, body: Buffer.from(JSON.stringify(values)) };
      }
      const qs = Object.entries(values)
        .map(([k, v]) => `${k}=${encodeComponent(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''), 0)}`)
        .join('&');
      return { method: t.method, target: `${t.url}?${qs}`, headers };
    });
}
