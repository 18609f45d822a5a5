import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { FastifyInstance } from 'fastify';
import { type ErrorCode, HTTP_STATUS, InputError, isMemloomError } from '../../src/errors.js';
import { translateError } from '../../src/errors-translate.js';
import type { Queues } from '../../src/queue/queues.js';
import { PostgresBackendAdapter, type WorkerSources } from './bull-board-workers.js';

export const BULL_BOARD_PATH = '/admin/queues';

/**
 * Bull Board's answer for an error in its routes. Its own handler answers 500 for everything,
 * including our body parser's 400s and a queue refusing an operation (obliterating a queue with
 * active jobs, retrying a job that is gone): those are the operator's request meeting the queue's
 * state, answered 409 with BullMQ's message; an unreachable backend is a 503.
 */
function boardError(error: Error & { statusCode?: number }): { status: number; body: unknown } {
  if (isMemloomError(error)) {
    const details = error instanceof InputError ? error.issues : error.details;
    return { status: HTTP_STATUS[error.kind], body: { error: { code: error.code, message: error.message, ...(details ? { details } : {}) } } };
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return { status: error.statusCode, body: { error: { code: 'BAD_REQUEST' satisfies ErrorCode, message: error.message } } };
  }
  const e = translateError(error);
  if (e.kind === 'unavailable') return { status: 503, body: { error: { code: e.code, message: e.message } } };
  return { status: 409, body: { error: { code: 'QUEUE_OPERATION_REFUSED' satisfies ErrorCode, message: error.message } } };
}

/**
 * Bull Board on every queue of the pipeline (retry and inspect failed or delayed jobs there). It
 * shows every tenant's jobs, so the API's auth hook opens it to MEMLOOM_ADMIN_KEYS only.
 */
export async function registerBullBoard(app: FastifyInstance, queues: Queues, workers: WorkerSources): Promise<void> {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: queues.all().map((q) => (queues.backend.kind === 'postgres' ? new PostgresBackendAdapter(q, workers) : new BullMQAdapter(q))),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'memloom' } },
  });
  serverAdapter.setErrorHandler(boardError as never);
  await app.register(serverAdapter.registerPlugin(), { prefix: BULL_BOARD_PATH });
}
