import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../src/deps.js';
import { InputError, MemloomError } from '../../../src/errors.js';
import { EventWriter } from '../../../src/events/ingest.js';
import { acceptEvents } from '../../../src/events/intake.js';
import { TenantRateLimiter } from '../../../src/events/rate-limit.js';
import { MAX_BATCH } from '../../../src/events/schema.js';
import { EventsQuery, waitSearchable } from '../../../src/events/searchable.js';
import { parseInput } from '../../../src/memories/schema.js';

/** Group commits of events in flight at once on a PostgreSQL server. */
const SERVER_WRITES_IN_FLIGHT = 4;

/**
 * POST /v1/events — one event or {"events":[…]}; 202 only after the events are committed. With
 * `?wait=searchable` the 202 comes once the stored events are recallable as chunks (read your
 * writes), or at `timeout_ms`, with `searchable: true | false` in the body.
 */
export function eventRoutes(app: FastifyInstance, deps: Deps): void {
  const limiter = new TenantRateLimiter(deps.config.INGEST_RATE_PER_SEC);
  // Group commit across concurrent requests: one write at a time on PGlite's one session, a few
  // at once on a server's pool (the pool has 10 connections; recall and the dispatcher need some).
  const writer = new EventWriter(deps.db, { inFlight: deps.embedded ? 1 : SERVER_WRITES_IN_FLIGHT });

  app.post('/v1/events', async (req, reply) => {
    const query = parseInput(EventsQuery, req.query, 'query parameters');
    const items = eventItems(req.body);
    const waitMs = limiter.take(req.tenantId, items.length);
    if (waitMs > 0) {
      throw new MemloomError('RATE_LIMITED', 'Over this tenant\u2019s ingest rate; retry after the indicated delay.', {
        kind: 'rate_limited',
        retryAfterMs: waitMs,
      });
    }
    const result = await acceptEvents(deps, req.tenantId, items, { source: 'http', writer });
    const stored = result.accepted + result.duplicates;
    if (stored === 0 && result.issues.length > 0) {
      if (result.tooLarge.length === items.length) {
        throw new MemloomError('CONTENT_TOO_LARGE', 'content is over 1 MiB (UTF-8).', { kind: 'too_large' });
      }
      throw new InputError(items.length === 1 ? 'The event is invalid.' : 'No event in the batch is valid.', result.issues);
    }
    const body: Record<string, unknown> = { accepted: result.accepted, duplicates: result.duplicates, ids: result.ids };
    if (result.issues.length > 0)
      body.error = { code: 'INPUT_INVALID', message: `${result.issues.length} problem(s) in rejected events; the rest were accepted.`, details: result.issues };
    if (query.wait === 'searchable') {
      const ids = result.ids.filter((id): id is string => id !== null);
      // The request stream ends (and is destroyed) once its body is read; the socket tells whether the client left.
      body.searchable = await waitSearchable(deps.db, req.tenantId, ids, query.timeout_ms, () => req.raw.socket?.destroyed === true);
    }
    return reply.status(202).send(body);
  });
}

function eventItems(body: unknown): unknown[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new InputError('The body must be one event object or {"events": [...]}.', [{ path: '', message: 'expected a JSON object' }]);
  }
  const b = body as Record<string, unknown>;
  if ('events' in b && !('content' in b)) {
    if (!Array.isArray(b.events)) throw new InputError('"events" must be an array.', [{ path: 'events', message: 'expected an array' }]);
    if (b.events.length === 0) throw new InputError('"events" is empty.', [{ path: 'events', message: 'expected 1 to 1000 events' }]);
    if (b.events.length > MAX_BATCH) {
      throw new MemloomError('BATCH_TOO_LARGE', `At most ${MAX_BATCH} events per request (got ${b.events.length}).`, {
        kind: 'too_large',
        details: { max: MAX_BATCH },
      });
    }
    return b.events;
  }
  return [body];
}
