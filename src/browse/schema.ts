import { z } from 'zod';
import { identifier } from '../input.js';

const id = identifier(200);
const limit = z.coerce.number().int().min(1).max(500).default(50);
const cursor = z.string().min(1).max(400).optional().describe('the next_cursor of the previous page');

/** GET /v1/users — users that sent events, by user id. */
export const UsersQuery = z.object({ user_id: id.optional().describe('only this user'), dataset: id.optional(), limit, cursor }).strict();

/** GET /v1/sessions — sessions, most recent first (of one user when user_id is given). */
export const SessionsQuery = z.object({ user_id: id.optional(), dataset: id.optional(), limit, cursor }).strict();

/** GET /v1/events — the events of one session, in order of arrival. */
export const SessionEventsQuery = z
  .object({
    session_id: id.describe('the session whose events to list'),
    user_id: id.optional().describe("only this user's events of the session"),
    limit,
    cursor,
  })
  .strict();
