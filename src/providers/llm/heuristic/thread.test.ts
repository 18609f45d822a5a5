import { afterAll, describe, expect, it } from 'vitest';
import type { ExtractMessage } from '../types.js';
import { HeuristicLlm } from './index.js';

const at = '2026-11-02T09:00:00.000Z';
const sessions: ExtractMessage[][] = [
  [
    {
      index: 0,
      type: 'message',
      role: 'user',
      speaker: 'Alice',
      content: 'We decided to move the billing service to PostgreSQL next quarter.',
      occurredAt: at,
    },
    {
      index: 1,
      type: 'message',
      role: 'user',
      speaker: 'Bob',
      content: 'I prefer TypeScript for services. To deploy, run `make release` in infra/.',
      occurredAt: at,
    },
  ],
  [{ index: 0, type: 'message', role: 'user', content: '我们决定下个月把数据库迁移到 PostgreSQL。张伟负责这个项目。', occurredAt: at }],
];

describe('the heuristic extractor in its worker thread (thread-boot.mjs)', () => {
  const inThread = new HeuristicLlm({ thread: true });
  const inProcess = new HeuristicLlm();
  afterAll(async () => inThread.close());

  it('boots and answers exactly as the in-process extractor, for English and Chinese', async () => {
    for (const messages of sessions) {
      const input = { messages, knownEntities: [] };
      const [a, b] = await Promise.all([inThread.extract(input), inProcess.extract(input)]);
      expect(a.result.memories.length).toBeGreaterThan(0);
      expect(a.result).toEqual(b.result);
    }
  }, 60_000);

  it('fails the calls of a thread that dies with a retryable error, and the next call starts a new thread', async () => {
    const input = { messages: sessions[0] as ExtractMessage[], knownEntities: [] };
    await inThread.extract(input);
    const worker = (inThread as unknown as { session: { worker: import('node:worker_threads').Worker } }).session.worker;
    // A long session keeps the thread busy well past terminate().
    const long = Array.from({ length: 300 }, (_, i) => ({ ...(sessions[0]?.[i % 2] as ExtractMessage), index: i }));
    const pending = inThread.extract({ messages: long, knownEntities: [] });
    await worker.terminate();
    await expect(pending).rejects.toMatchObject({ code: 'EXTRACTOR_CRASHED', retryable: true });
    expect((await inThread.extract(input)).result).toEqual((await inProcess.extract(input)).result);
  }, 60_000);
});
