import { z } from 'zod';
import { EventsQuery } from '../../../src/events/searchable.js';
import { ExportQuery } from '../../../src/export/schema.js';
import { ForgetScope } from '../../../src/forget/schema.js';
import { EntityQuery, EntitySearchQuery, SchemaQuery } from '../../../src/graph/schema.js';
import { CorrectInput, FeedbackInput, IdParams, ListMemoriesQuery, MemoryRefParams, SupersedeInput, WorkingMemoryQuery } from '../../../src/memories/schema.js';
import { SessionEventsQuery, SessionsQuery, UsersQuery } from '../../../src/browse/schema.js';
import { DeadLettersQuery, DoctorQuery, RetryBody } from '../../../src/ops/schema.js';
import { RecallInput } from '../../../src/recall/schema.js';
import { ContextInput } from '../../../src/context/schema.js';
import { ContextAnswer, DoctorAnswer, ErrorBody, EventBody, EventsAccepted, ForgetAnswer, ImportAnswer, RecallAnswer, StatsAnswer } from './responses.js';

/**
 * Every route of the API, described once: the OpenAPI document (/openapi.json), the docs page and
 * docs/api.md's table come from this list, and a test checks it against the routes Fastify
 * registered. Request schemas are the ones the handlers parse with (src/<area>/schema.ts).
 */

export interface RouteResponse {
  description: string;
  schema?: z.ZodType;
  /** Default application/json. */
  contentType?: string;
}

export interface RouteDoc {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** OpenAPI form: `{id}` for a path parameter. */
  path: string;
  summary: string;
  description?: string;
  tag: 'events' | 'recall' | 'memories' | 'graph' | 'export' | 'agents' | 'ops';
  /** false: answered without an API key (health, metrics, the API description). */
  auth: boolean;
  query?: z.ZodObject;
  params?: z.ZodObject;
  body?: z.ZodType;
  bodyContentType?: string;
  responses: Record<string, RouteResponse>;
}

const json = (description: string, schema?: z.ZodType): RouteResponse => ({ description, ...(schema ? { schema } : {}) });
const invalid = json('invalid input; `error.details[]` names each problem', ErrorBody);
const notFound = json('no such object in this tenant', ErrorBody);

export const ROUTES: RouteDoc[] = [
  {
    method: 'POST',
    path: '/v1/events',
    tag: 'events',
    auth: true,
    summary: 'Store one event or a batch (fire-and-forget, or wait until searchable)',
    description:
      'Answers 202 once the events are durably stored; the pipeline turns them into memory afterwards. A batch is `{"events": [...]}` (at most 1,000); bad events are rejected one by one and the rest accepted. With `?wait=searchable` the answer waits (at most `timeout_ms`, default 5,000, at most 30,000) until the stored events are recallable as chunks, and says so in `searchable` (false: the timeout came first, or an event failed).',
    query: EventsQuery,
    body: z.union([EventBody, z.object({ events: z.array(EventBody).min(1).max(1000) })]).describe('one event, or {"events": [...]}'),
    responses: {
      202: json('stored (some may be rejected: see error.details)', EventsAccepted),
      400: invalid,
      413: json('over the size limit', ErrorBody),
      429: json('over the tenant\u2019s ingest rate; see Retry-After', ErrorBody),
      503: json('the database cannot take the write', ErrorBody),
    },
  },
  {
    method: 'POST',
    path: '/v1/recall',
    tag: 'recall',
    auth: true,
    summary: 'Hybrid search over memories, evidence chunks and the graph',
    body: RecallInput,
    responses: { 200: json('ranked results and a recall_id for feedback', RecallAnswer), 400: invalid },
  },
  {
    method: 'POST',
    path: '/v1/context',
    tag: 'recall',
    auth: true,
    summary: 'A token-budgeted block for a prompt: current facts, then dated evidence',
    description:
      'Runs one recall (memories and evidence chunks, with the match floor) and packs the results by rank: the current memories that answer the query first, then the evidence turns, deduplicated (a chunk of an event a listed memory came from, or near-identical to a listed line, is left out; chunks of one event are merged), each with its date and source id. Evidence that no longer holds is marked with what replaced it and when. The whole Markdown block, headings included, is at most `budget_tokens` (o200k_base). `match: none` gives an empty block. With `format: json` the answer has `items` only (packed for the same budget).',
    body: ContextInput,
    responses: { 200: json('the block, its items and the recall behind it', ContextAnswer), 400: invalid },
  },
  {
    method: 'POST',
    path: '/v1/feedback',
    tag: 'recall',
    auth: true,
    summary: 'Score a recall (1-5); a good answer becomes a new event',
    body: FeedbackInput,
    responses: { 201: json('stored'), 200: json('the recall already had feedback: nothing added'), 400: invalid, 404: notFound },
  },
  {
    method: 'GET',
    path: '/v1/memories',
    tag: 'memories',
    auth: true,
    summary: 'List memories, newest first, with filters and a cursor',
    query: ListMemoriesQuery,
    responses: { 200: json('a page of memories and next_cursor'), 400: invalid },
  },
  {
    method: 'GET',
    path: '/v1/memories/{id}',
    tag: 'memories',
    auth: true,
    summary: 'One memory with provenance, versions, relations and entities',
    params: MemoryRefParams,
    responses: { 200: json('the memory'), 400: invalid, 404: notFound, 409: json('a short id several memories share', ErrorBody) },
  },
  {
    method: 'PATCH',
    path: '/v1/memories/{id}',
    tag: 'memories',
    auth: true,
    summary: 'Correct a memory: a new version supersedes it',
    params: IdParams,
    body: CorrectInput,
    responses: { 200: json('the new version'), 400: invalid, 404: notFound, 409: json('not the active version', ErrorBody) },
  },
  {
    method: 'DELETE',
    path: '/v1/memories/{id}',
    tag: 'memories',
    auth: true,
    summary: 'Delete one memory for good',
    params: IdParams,
    responses: { 200: json('what was removed', ForgetAnswer), 404: notFound },
  },
  {
    method: 'POST',
    path: '/v1/memories/{id}/restore',
    tag: 'memories',
    auth: true,
    summary: 'Bring an archived memory back',
    params: IdParams,
    responses: { 200: json('restored'), 404: notFound, 409: json('not archived', ErrorBody) },
  },
  {
    method: 'POST',
    path: '/v1/memories/{id}/supersede',
    tag: 'memories',
    auth: true,
    summary: 'Settle a conflict: keep `by`, supersede this memory',
    description:
      'For two active memories of one user that contradict each other (a `challenges` relation, listed by GET /v1/memories?conflicts=true): this one leaves the active set from now on, superseded by `by`, which `replaces` it. `as_of` before the choice still finds it.',
    params: IdParams,
    body: SupersedeInput,
    responses: {
      200: json('superseded'),
      400: invalid,
      404: notFound,
      409: json('one of them is not active, or they belong to different users', ErrorBody),
    },
  },
  {
    method: 'GET',
    path: '/v1/users',
    tag: 'memories',
    auth: true,
    summary: 'Users that sent events, with counts of events, sessions and active memories',
    query: UsersQuery,
    responses: { 200: json('a page of users and next_cursor'), 400: invalid },
  },
  {
    method: 'GET',
    path: '/v1/sessions',
    tag: 'memories',
    auth: true,
    summary: 'Sessions, most recent first, with counts of events and active memories',
    query: SessionsQuery,
    responses: { 200: json('a page of sessions and next_cursor'), 400: invalid },
  },
  {
    method: 'GET',
    path: '/v1/events',
    tag: 'events',
    auth: true,
    summary: 'The events of a session, in order of arrival',
    query: SessionEventsQuery,
    responses: { 200: json('a page of events and next_cursor'), 400: invalid },
  },
  {
    method: 'POST',
    path: '/v1/forget',
    tag: 'memories',
    auth: true,
    summary: 'Forget an event, session, user or dataset, following provenance',
    body: ForgetScope,
    responses: { 200: json('counts removed per object type; idempotent', ForgetAnswer), 400: invalid },
  },
  {
    method: 'GET',
    path: '/v1/working-memory',
    tag: 'memories',
    auth: true,
    summary: 'The working memory of a user (Markdown)',
    description:
      'Sections: who the user is, preferences, current decisions (with what they replaced), people, open plans and deadlines, recent changes. Each line ends with its date and `m:<first 8 hex digits of the memory id>`, which GET /v1/memories/{id} accepts. budget_tokens trims whole lines, lowest priority (importance, recency) first.',
    query: WorkingMemoryQuery,
    responses: {
      200: { description: 'the digest', contentType: 'text/markdown' },
      400: invalid,
      404: json('no working memory yet', ErrorBody),
    },
  },
  {
    method: 'GET',
    path: '/v1/graph/entities',
    tag: 'graph',
    auth: true,
    summary: "Search entities by name, in one user's graph (user_id, dataset)",
    query: EntitySearchQuery,
    responses: { 200: json('matching entities'), 400: invalid },
  },
  {
    method: 'GET',
    path: '/v1/graph/entities/{id}',
    tag: 'graph',
    auth: true,
    summary: "An entity and its neighbourhood (depth 1-3); not found outside the given user's graph",
    params: IdParams,
    query: EntityQuery,
    responses: { 200: json('the entity, its neighbours and edges'), 400: invalid, 404: notFound },
  },
  {
    method: 'GET',
    path: '/v1/schema',
    tag: 'graph',
    auth: true,
    summary: 'Entity types, relation types and memory kinds with counts (of one user/dataset, or the tenant)',
    query: SchemaQuery,
    responses: { 200: json('the counts'), 400: invalid },
  },
  {
    method: 'GET',
    path: '/v1/export',
    tag: 'export',
    auth: true,
    summary: 'Export memory as JSON lines or Markdown (streamed)',
    description:
      'Events, chunks, entities, memories (with versions and signals), edges, relations, provenance and working memory of one user, one dataset or the whole tenant. JSON lines can be imported with POST /v1/import.',
    query: ExportQuery,
    responses: { 200: { description: 'one record per line (jsonl) or a Markdown document', contentType: 'application/x-ndjson' }, 400: invalid },
  },
  {
    method: 'POST',
    path: '/v1/import',
    tag: 'export',
    auth: true,
    summary: 'Import an export (JSON lines); idempotent',
    bodyContentType: 'application/x-ndjson',
    responses: { 200: json('counts per record type', ImportAnswer), 400: invalid },
  },
  {
    method: 'GET',
    path: '/v1/stats',
    tag: 'ops',
    auth: true,
    summary: 'Object counts, queue counts and pending events',
    responses: { 200: json('counts', StatsAnswer) },
  },
  {
    method: 'GET',
    path: '/v1/dead-letters',
    tag: 'ops',
    auth: true,
    summary: 'Malformed file lines and failed jobs, newest first',
    query: DeadLettersQuery,
    responses: { 200: json('a page of dead letters and next_before'), 400: invalid },
  },
  {
    method: 'POST',
    path: '/v1/dead-letters/{id}/retry',
    tag: 'ops',
    auth: true,
    summary: "One dead letter's failed job back to waiting",
    params: IdParams,
    responses: {
      200: json('how many were retried'),
      400: invalid,
      404: notFound,
      409: json('a malformed file line, or a job that is no longer failed', ErrorBody),
    },
  },
  {
    method: 'POST',
    path: '/v1/jobs/retry',
    tag: 'ops',
    auth: true,
    summary: 'Failed jobs back to waiting',
    body: RetryBody,
    responses: { 200: json('how many were retried'), 400: invalid },
  },
  {
    method: 'GET',
    path: '/v1/budget',
    tag: 'ops',
    auth: true,
    summary: 'Token budgets, provider rate windows and the task quota',
    responses: { 200: json('figures per window') },
  },
  {
    method: 'POST',
    path: '/mcp',
    tag: 'agents',
    auth: true,
    summary: 'MCP over streamable HTTP (tools remember, recall, get_context, forget, get_working_memory)',
    description: 'Stateless JSON-RPC per request; the tenant comes from the API key. See docs/agents.md.',
    body: z.looseObject({ jsonrpc: z.literal('2.0'), method: z.string(), id: z.union([z.string(), z.number()]).optional(), params: z.unknown().optional() }),
    responses: { 200: json('a JSON-RPC answer'), 202: json('a notification was accepted'), 401: json('no valid API key', ErrorBody) },
  },
  {
    method: 'GET',
    path: '/mcp',
    tag: 'agents',
    auth: true,
    summary: 'Not used: the MCP endpoint is stateless (405)',
    responses: { 405: json('method not allowed') },
  },
  {
    method: 'DELETE',
    path: '/mcp',
    tag: 'agents',
    auth: true,
    summary: 'Not used: no MCP sessions to end (405)',
    responses: { 405: json('method not allowed') },
  },
  { method: 'GET', path: '/healthz', tag: 'ops', auth: false, summary: 'Liveness', responses: { 200: json('ok') } },
  {
    method: 'GET',
    path: '/readyz',
    tag: 'ops',
    auth: false,
    summary: 'Readiness: database, queue and provider checks',
    responses: { 200: json('ready'), 503: json('not ready, with the failing checks') },
  },
  {
    method: 'GET',
    path: '/metrics',
    tag: 'ops',
    auth: false,
    summary: 'Prometheus metrics',
    responses: { 200: { description: 'text exposition format', contentType: 'text/plain' } },
  },
  {
    method: 'GET',
    path: '/admin/doctor',
    tag: 'ops',
    auth: true,
    summary: 'Invariant checks of every tenant (memloom doctor through the running process)',
    description:
      'Counts violations of the memory invariants per tenant (orphans, duplicate entities, broken version chains). Reads every tenant: once any key is configured it needs a key of MEMLOOM_ADMIN_KEYS (a tenant key answers 403). Scans whole tables: an operator check, not something to poll.',
    query: DoctorQuery,
    responses: {
      200: json('the checks of each tenant and the total of violations', DoctorAnswer),
      400: invalid,
      401: json('no valid key', ErrorBody),
      403: json('a tenant key: this surface needs an admin key', ErrorBody),
    },
  },
  {
    method: 'GET',
    path: '/admin/queues',
    tag: 'ops',
    auth: true,
    summary: 'Bull Board (queues UI)',
    responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
  },
  { method: 'GET', path: '/openapi.json', tag: 'ops', auth: false, summary: 'This document (OpenAPI 3.1)', responses: { 200: json('the document') } },
  {
    method: 'GET',
    path: '/docs',
    tag: 'ops',
    auth: false,
    summary: 'The interactive reference of this document (Swagger UI, served offline; try requests with your key)',
    responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
  },
  {
    method: 'GET',
    path: '/',
    tag: 'ops',
    auth: false,
    summary: 'The console: users, memories, conflicts, graph, working memory and health in the browser (docs/console.md)',
    description: 'A page without data: it calls this API with the key the user enters.',
    responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
  },
  {
    method: 'GET',
    path: '/console/{file}',
    tag: 'ops',
    auth: false,
    summary: "The console's scripts and style",
    params: z.object({ file: z.string().describe('a file name of apps/console') }),
    responses: { 200: { description: 'a script or style sheet', contentType: 'text/javascript' }, 404: json('no such file', ErrorBody) },
  },
];
