import { Readable } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Deps } from '../../../src/deps.js';
import { exportRecords, jsonLinesOf } from '../../../src/export/export.js';
import { importRecords, streamLines } from '../../../src/export/import.js';
import { markdownOf } from '../../../src/export/markdown.js';
import { ExportQuery } from '../../../src/export/schema.js';
import { parseInput } from '../../../src/memories/schema.js';
import { MemloomError } from '../../../src/errors.js';

/**
 * GET /v1/export?format=jsonl|markdown[&user_id=|&dataset=][&vectors=false] — streamed, page by
 * page. POST /v1/import (application/x-ndjson: an export's JSON lines, streamed, no body limit)
 * → 200 with counts per record type. Both for the caller's tenant only.
 */
export function exportRoutes(app: FastifyInstance, deps: Deps): void {
  app.get('/v1/export', async (req, reply) => {
    const q = parseInput(ExportQuery, req.query, 'query parameters');
    const records = logged(exportRecords(deps, req.tenantId, q), req.log);
    const markdown = q.format === 'markdown';
    const name =
      `memloom-${req.tenantId}${q.user_id ? `-user-${q.user_id}` : ''}${q.dataset ? `-dataset-${q.dataset}` : ''}.${markdown ? 'md' : 'jsonl'}`.replace(
        /[^A-Za-z0-9._-]/g,
        '_',
      );
    return reply
      .type(markdown ? 'text/markdown; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name}"`)
      .send(Readable.from(markdown ? markdownOf(records) : jsonLinesOf(records)));
  });

  app.register(async (scoped) => {
    // The body is read as a stream by the import itself, line by line: no size limit, no buffering.
    scoped.addContentTypeParser('application/x-ndjson', (_req, payload, done) => done(null, payload));
    scoped.post('/v1/import', async (req) => {
      // Any other content type (or none) arrives parsed or empty, not as a stream: a 400, not a TypeError's 500.
      if (req.body === null || typeof req.body !== 'object' || !(Symbol.asyncIterator in req.body)) {
        throw new MemloomError('UNSUPPORTED_MEDIA_TYPE', 'Send an export\u2019s JSON lines as application/x-ndjson.', { kind: 'input' });
      }
      return importRecords(deps, req.tenantId, streamLines(req.body as AsyncIterable<Uint8Array>));
    });
  });
}

/** The answer has started when a page fails: the stream is cut (no `end` record) and the cause logged here. */
async function* logged<T>(records: AsyncGenerator<T>, log: FastifyBaseLogger): AsyncGenerator<T> {
  try {
    yield* records;
  } catch (err) {
    log.error({ err }, 'export failed mid-stream');
    throw err;
  }
}
