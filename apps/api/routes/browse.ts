import type { FastifyInstance } from 'fastify';
import { sessionEventsPage, sessionsPage, usersPage } from '../../../src/browse/index.js';
import { SessionEventsQuery, SessionsQuery, UsersQuery } from '../../../src/browse/schema.js';
import type { Deps } from '../../../src/deps.js';
import { parseInput } from '../../../src/memories/schema.js';

/**
 * GET /v1/users (users with their counts), GET /v1/sessions (recent sessions with counts, of one
 * user or all), GET /v1/events?session_id= (a session's events in order). Each pages with
 * `cursor=<next_cursor>` (null on the last page); the tenant comes from the key (RLS).
 */
export function browseRoutes(app: FastifyInstance, deps: Deps): void {
  app.get('/v1/users', async (req) => usersPage(deps, req.tenantId, parseInput(UsersQuery, req.query, 'query parameters')));
  app.get('/v1/sessions', async (req) => sessionsPage(deps, req.tenantId, parseInput(SessionsQuery, req.query, 'query parameters')));
  app.get('/v1/events', async (req) => sessionEventsPage(deps, req.tenantId, parseInput(SessionEventsQuery, req.query, 'query parameters')));
}
