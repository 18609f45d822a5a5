import { readFile } from 'node:fs/promises';
import { z } from 'zod';

/**
 * The public LoCoMo format (Maharana et al., ACL 2024): conversations with `session_N` turn lists
 * and `session_N_date_time` strings, and `qa` items with evidence dia ids. Read from a path given
 * on the command line; the dataset is CC BY-NC 4.0 and is never copied into this repository.
 */
const Turn = z.object({ speaker: z.string(), dia_id: z.string(), text: z.string(), blip_caption: z.string().optional() }).loose();
const Qa = z.object({ question: z.string(), evidence: z.array(z.string()).default([]), category: z.number().int() }).loose();
const Sample = z.object({ sample_id: z.string(), conversation: z.record(z.string(), z.unknown()), qa: z.array(Qa) }).loose();

export interface LocomoEvent {
  id: string;
  sample_id: string;
  user_id: string;
  session_id: string;
  content: string;
  occurred_at: string;
  metadata: { speaker: string; dia_id: string };
}

export interface LocomoQuestion {
  sampleId: string;
  question: string;
  category: number;
  /** Normalised evidence dia ids ("D8:6"), unresolvable ones dropped. */
  evidence: string[];
}

export interface Locomo {
  events: LocomoEvent[];
  questions: LocomoQuestion[];
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" → ISO (UTC). */
export function parseLocomoDate(s: string): string | undefined {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(s);
  if (!m) return undefined;
  const month = MONTHS.indexOf((m[5] as string).toLowerCase());
  if (month < 0) return undefined;
  let hour = Number(m[1]) % 12;
  if ((m[3] as string).toLowerCase() === 'pm') hour += 12;
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))).toISOString();
}

/** Fixes the known malformed evidence ids: "D8:6; D9:17", "D:11:26", "D30:05". */
export function normaliseEvidence(raw: string[]): string[] {
  const out: string[] = [];
  for (const r of raw) {
    for (const part of r.split(/[;,]/)) {
      const m = /^D:?(\d+):0*(\d+)$/.exec(part.trim());
      if (m) out.push(`D${Number(m[1])}:${Number(m[2])}`);
    }
  }
  return [...new Set(out)];
}

/** Conversations of `path`: the first `maxConversations`, or those named in `sampleIds`. */
export async function loadLocomo(path: string, maxConversations = Infinity, sampleIds?: string[]): Promise<Locomo> {
  const all = z.array(Sample).parse(JSON.parse(await readFile(path, 'utf8')));
  const samples = sampleIds ? all.filter((s) => sampleIds.includes(s.sample_id)) : all.slice(0, maxConversations);
  if (sampleIds && samples.length !== sampleIds.length)
    throw new Error(`unknown sample in --samples: ${sampleIds.filter((id) => !all.some((s) => s.sample_id === id)).join(', ')}`);
  const events: LocomoEvent[] = [];
  const questions: LocomoQuestion[] = [];
  for (const s of samples) {
    const conv = s.conversation;
    const sessions = Object.keys(conv)
      .map((k) => /^session_(\d+)$/.exec(k)?.[1])
      .filter((n): n is string => n !== undefined)
      .sort((a, b) => Number(a) - Number(b));
    const known = new Set<string>();
    for (const n of sessions) {
      const turns = z.array(Turn).parse(conv[`session_${n}`]);
      const date = parseLocomoDate(String(conv[`session_${n}_date_time`] ?? '')) ?? new Date(0).toISOString();
      turns.forEach((t, i) => {
        known.add(t.dia_id);
        const content = t.blip_caption ? `${t.text} [shares a photo: ${t.blip_caption}]` : t.text;
        // Turns of one session share its date; a second per turn keeps their order.
        const occurred = new Date(new Date(date).getTime() + i * 1000).toISOString();
        events.push({
          id: `${s.sample_id}-${t.dia_id}`,
          sample_id: s.sample_id,
          user_id: s.sample_id,
          session_id: `${s.sample_id}-s${n}`,
          content,
          occurred_at: occurred,
          metadata: { speaker: t.speaker, dia_id: t.dia_id },
        });
      });
    }
    for (const q of s.qa) {
      const evidence = normaliseEvidence(q.evidence).filter((e) => known.has(e));
      if (evidence.length > 0) questions.push({ sampleId: s.sample_id, question: q.question, category: q.category, evidence });
    }
  }
  return { events, questions };
}
