import { readFile } from 'node:fs/promises';

/** The turns of a LoCoMo-format file as the pipeline benchmark sends them: one event per turn. */
export interface Turn {
  speaker: string;
  text: string;
  session: string;
  user: string;
}

export async function loadTurns(file: string): Promise<Turn[]> {
  const samples = JSON.parse(await readFile(file, 'utf8')) as Array<{ sample_id: string; conversation: Record<string, unknown> }>;
  const turns: Turn[] = [];
  for (const s of samples) {
    for (const [key, value] of Object.entries(s.conversation)) {
      if (!/^session_\d+$/.test(key) || !Array.isArray(value)) continue;
      for (const t of value as Array<{ speaker: string; text: string }>)
        turns.push({ speaker: t.speaker, text: t.text, session: `${s.sample_id}-${key}`, user: s.sample_id });
    }
  }
  return turns;
}

/** `copies` copies of the corpus with distinct ids and sessions (a copy is another user's history). */
export function events(turns: Turn[], copies: number, tag: string): object[] {
  const out: object[] = [];
  for (let c = 0; c < copies; c++) {
    turns.forEach((t, i) =>
      out.push({
        id: `${tag}-${c}-${i}`,
        session_id: `${t.session}-${tag}${c}`,
        user_id: `${t.user}-${tag}${c}`,
        role: 'user',
        content: t.text,
        metadata: { speaker: t.speaker },
      }),
    );
  }
  return out;
}

/** Round-robin over sessions: every session receives a turn now and then, as live agents do. */
export function interleave(list: object[]): object[] {
  const bySession = new Map<string, object[]>();
  for (const e of list) {
    const s = (e as { session_id: string }).session_id;
    bySession.set(s, [...(bySession.get(s) ?? []), e]);
  }
  const queues = [...bySession.values()];
  const out: object[] = [];
  for (let i = 0; out.length < list.length; i++) for (const q of queues) if (q[i]) out.push(q[i] as object);
  return out;
}
