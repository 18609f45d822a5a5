import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';
import { HTTP_STATUS, InputError, MemloomError, isMemloomError } from '../../src/errors.js';
import { translateError } from '../../src/errors-translate.js';

/** The one HTTP error boundary: `{ error: { code, message, details? } }`, never a stack trace. */
export function errorHandler(err: FastifyError | Error, req: FastifyRequest, reply: FastifyReply): void {
  const e = toMemloomError(err);
  const status = HTTP_STATUS[e.kind];
  if (status >= 500) req.log.error({ err, code: e.code }, 'request failed');
  else req.log.debug({ code: e.code }, 'request rejected');
  if (e.retryAfterMs !== undefined) void reply.header('retry-after', String(Math.max(1, Math.ceil(e.retryAfterMs / 1000))));
  const body: Record<string, unknown> = { code: e.code, message: e.message };
  if (e instanceof InputError) body.details = e.issues;
  else if (e.details) body.details = e.details;
  void reply.status(status).send({ error: body });
}

function toMemloomError(err: FastifyError | Error): MemloomError {
  if (isMemloomError(err)) return err;
  if (err instanceof ZodError) return translateError(err);
  const fe = err as FastifyError;
  if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new MemloomError('BODY_TOO_LARGE', 'The request body is over the configured limit.', { kind: 'too_large' });
  if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new MemloomError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.', { kind: 'input' });
  if (fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || (fe.statusCode === 400 && err instanceof SyntaxError)) {
    return new MemloomError('INVALID_JSON', 'The body is not valid JSON.', { kind: 'input' });
  }
  if (fe.statusCode !== undefined && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new MemloomError('BAD_REQUEST', fe.message, { kind: fe.statusCode === 413 ? 'too_large' : fe.statusCode === 404 ? 'not_found' : 'input' });
  }
  return translateError(err);
}
