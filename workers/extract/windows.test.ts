import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from '../../src/domain/tokens.js';
import type { ExtractMessage } from '../../src/providers/llm/types.js';
import { startTestMemloom, type TestMemloom } from '../../test/support/memloom.js';
import { callsTo, ingest, perMessageExtractor, runStage, sql, stubProviderEnv, TENANT, throughEmbed } from '../../test/support/pipeline.js';
import { startProviderStub, type ProviderStub } from '../../test/support/provider-stub.js';
import { extract } from './handler.js';
import { extractWindows, windowTokens } from './windows.js';

const message = (index: number, content: string): ExtractMessage => ({ index, type: 'message', role: 'user', content, occurredAt: '2026-12-01T10:00:00.000Z' });
const prose = (n: number) => Array.from({ length: n }, (_, i) => `Sentence ${i} says the ferry timetable changed again on pier ${i % 7}.`).join(' ');

describe('extraction windows', () => {
  it('leave a pass that fits one call as it is', async () => {
    const messages = [message(0, 'We decided to use PostgreSQL.'), message(1, 'I prefer Redis.')];
    const windows = await extractWindows(messages, 2_000);
    expect(windows).toEqual([messages]);
    expect(windows[0]).toBe(messages);
  });

  it('cut a long message into parts within the window that keep its index, and pack the rest in order', async () => {
    const long = prose(2_000);
    const messages = [message(0, 'First.'), message(1, long), message(2, 'Last.')];
    const windows = await extractWindows(messages, 3_000);
    expect(windows.length).toBeGreaterThan(5);
    for (const w of windows) expect(w.reduce((n, m) => n + countTokens(m.content) + 30, 0)).toBeLessThanOrEqual(3_000);
    const flat = windows.flat();
    expect(flat[0]).toBe(messages[0]);
    expect(flat[flat.length - 1]).toBe(messages[2]);
    const parts = flat.slice(1, -1);
    expect(parts.every((m) => m.index === 1 && m.occurredAt === messages[1]?.occurredAt)).toBe(true);
    expect(parts.map((m) => m.content).join('')).toBe(long);
  });

  it('fit the smallest of the budgets a call must pass', () => {
    const config = { TOKEN_BUDGET_PER_TASK: 50_000, LLM_TPM: 200_000, TOKEN_BUDGET_PER_HOUR: 2_000_000, TOKEN_BUDGET_PER_DAY: 20_000_000 };
    expect(windowTokens(config)).toBe(24_000);
    expect(windowTokens({ ...config, TOKEN_BUDGET_PER_TASK: 10_000 })).toBe(3_500);
    expect(windowTokens({ ...config, LLM_TPM: 9_000 })).toBe(2_700);
  });
});

describe('a pass larger than one model call', () => {
  let stub: ProviderStub;
  let m: TestMemloom;
  beforeAll(async () => {
    stub = await startProviderStub({ dimensions: 384 });
    stub.onChat(perMessageExtractor());
    m = await startTestMemloom({
      env: { ...stubProviderEnv(stub), EXTRACT_DEBOUNCE_MS: '0', TOKEN_BUDGET_PER_TASK: '10000' },
      roles: { api: false, workers: [] },
    });
  });
  afterAll(async () => {
    await m?.close();
    await stub?.close();
  });

  it('is extracted in several calls, each within the per-task budget, and a replay pays for none', async () => {
    // ~40,000 tokens: four times TOKEN_BUDGET_PER_TASK (one call failed for good: BUDGET_TASK_EXCEEDED).
    const ids = await ingest(m.deps, [{ session_id: 'win-1', user_id: 'u-win', role: 'user', content: `We decided to use PostgreSQL. ${prose(3_000)}` }]);
    await throughEmbed(m.deps, ids);
    const since = stub.calls.length;
    const { result } = await runStage(m.deps, extract, { tenantId: TENANT, extractKey: 'session:win-1' });
    expect(result.events).toBe(1);
    const calls = callsTo(stub, '/v1/chat/completions', since).filter((c) => c.status === 200);
    expect(calls.length).toBeGreaterThan(4);
    for (const c of calls) {
      const prompt = (c.body.messages as Array<{ content: string }>).reduce((n, x) => n + countTokens(x.content), 0);
      expect(prompt + 2_000).toBeLessThanOrEqual(10_000);
    }
    expect((await sql<{ status: string }>(m.deps.db, 'SELECT status FROM events WHERE id = $1', [ids[0]]))[0]?.status).toBe('done');
    expect((await sql<{ n: number }>(m.deps.db, `SELECT count(*)::int AS n FROM memories WHERE user_id = 'u-win'`))[0]?.n).toBe(calls.length);

    // The same pass again (its events put back): every window's answer comes from the cache.
    await sql(m.deps.db, `UPDATE events SET status = 'embedded', extract_pending = true WHERE id = $1`, [ids[0]]);
    const again = stub.calls.length;
    await runStage(m.deps, extract, { tenantId: TENANT, extractKey: 'session:win-1' });
    expect(callsTo(stub, '/v1/chat/completions', again)).toEqual([]);
  });
});
