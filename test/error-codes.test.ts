/** docs/api.md "Error codes" lists exactly the codes of src/error-codes.ts (the ErrorCode union), each with an HTTP status. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ERROR_CODES } from '../src/error-codes.js';
import { HTTP_STATUS } from '../src/errors.js';
import { ROOT } from './support/process.js';

it('documents every error code in docs/api.md, and no other', async () => {
  const doc = await readFile(path.join(ROOT, 'docs/api.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Error codes'), doc.indexOf('\n## ', doc.indexOf('### Error codes')));
  const rows = [...section.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| ([^|]+) \| (.+) \|$/gm)].map((m) => ({ code: m[1], status: m[2]?.trim(), meaning: m[3] }));
  const documented = rows.map((r) => r.code);
  expect(new Set(documented).size, 'a code listed twice').toBe(documented.length);
  expect([...documented].sort()).toEqual(Object.keys(ERROR_CODES).sort());
  const statuses = new Set(Object.values(HTTP_STATUS).map(String));
  for (const r of rows) {
    const bad = r.status === '—' ? [] : (r.status ?? '').split(', ').filter((s) => !statuses.has(s));
    expect({ code: r.code, bad }).toEqual({ code: r.code, bad: [] });
  }
});
