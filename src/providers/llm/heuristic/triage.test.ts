import { describe, expect, it } from 'vitest';
import { heuristicTriage } from './triage.js';

describe('heuristicTriage', () => {
  it.each(['ok', 'ok thanks', 'thanks!', 'Got it.', '👍', 'lol', 'sure', 'OK, thank you so much!', '好的', '谢谢', '收到', '好的，谢谢'])(
    'skips the acknowledgement %j',
    (content) => {
      expect(heuristicTriage(content, 'message')).toMatchObject({ keep: false, reason: 'ack' });
    },
  );

  it.each(['', '   \n', '...'])('skips empty content %j', (content) => {
    expect(heuristicTriage(content, 'message')).toMatchObject({ keep: false, reason: 'empty' });
  });

  it.each(['{}', '[]', 'null', 'OK', 'done', 'success', ' { } '])('skips the empty tool output %j', (content) => {
    expect(heuristicTriage(content, 'tool_result')).toMatchObject({ keep: false, reason: 'empty' });
  });

  it('skips a session_end marker whatever it says: it is metadata, never a chunk or a memory', () => {
    expect(heuristicTriage('Session ended (exit).', 'session_end')).toMatchObject({ keep: false, reason: 'marker' });
    expect(heuristicTriage('We decided to use Redis.', 'session_end')).toMatchObject({ keep: false, reason: 'marker' });
  });

  it('keeps content and orders it by type', () => {
    expect(heuristicTriage('We decided to use Redis.', 'decision')).toEqual({ keep: true, priority: 2 });
    expect(heuristicTriage('# Runbook\nRestart the worker.', 'document')).toEqual({ keep: true, priority: 2 });
    expect(heuristicTriage('I moved to Berlin last year.', 'message')).toEqual({ keep: true, priority: 5 });
    expect(heuristicTriage('{"rows": 3}', 'tool_result')).toEqual({ keep: true, priority: 8 });
  });

  it('keeps short messages that merely start like an acknowledgement', () => {
    expect(heuristicTriage('ok, use Postgres', 'message').keep).toBe(true);
    expect(heuristicTriage('No, do it tomorrow', 'message').keep).toBe(true);
    expect(heuristicTriage('okra is my favourite', 'message').keep).toBe(true);
    expect(heuristicTriage('好的，明天部署', 'message').keep).toBe(true);
  });
});
