import type { FastifyInstance } from 'fastify';
import { MemloomError } from '../../src/errors.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * JSON bodies are decoded strictly: invalid UTF-8 is a 400 (the default parser would silently
 * replace it with U+FFFD and store garbage), as is JSON nested so deep that parsing overflows.
 */
export function registerStrictJson(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body: Buffer, done) => {
    let text: string;
    try {
      text = decoder.decode(body);
    } catch {
      done(new MemloomError('INVALID_UTF8', 'The body is not valid UTF-8.', { kind: 'input' }), undefined);
      return;
    }
    if (text.trim() === '') {
      done(new MemloomError('INVALID_JSON', 'The body is empty; send a JSON object.', { kind: 'input' }), undefined);
      return;
    }
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      const deep = err instanceof RangeError;
      done(
        new MemloomError(
          deep ? 'JSON_TOO_DEEP' : 'INVALID_JSON',
          deep ? 'The JSON body is nested too deeply.' : `The body is not valid JSON: ${(err as Error).message}`,
          { kind: 'input' },
        ),
        undefined,
      );
    }
  });
}
