/**
 * Measures the heuristic extractor against LoCoMo's reference observations.
 *
 *   npx tsx scripts/eval-extraction.ts [path/to/locomo.json]
 *
 * Each session's turns go to the extractor as one batch (speaker, text, session time). A reference
 * observation ([fact, dia_id]) counts as covered when its evidence turn produced a memory, and as
 * lexically recalled when a memory from that turn reaches token-F1 >= 0.3 against it (lower-case
 * words minus stopwords). The dataset is read in place and never copied into the repository.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { HeuristicLlm } from '../src/providers/llm/heuristic/index.js';
import { MONTHS } from '../src/providers/llm/heuristic/time.js';
import { contentTokens } from '../src/providers/llm/heuristic/lexicon.js';
import type { ExtractMessage, ExtractionResult } from '../src/providers/llm/types.js';

const Turn = z.object({ speaker: z.string(), dia_id: z.string(), text: z.string() });
const Evidence = z.union([z.string(), z.array(z.string())]);
const Sample = z.object({
  sample_id: z.string(),
  conversation: z.record(z.string(), z.unknown()),
  observation: z.record(z.string(), z.record(z.string(), z.array(z.tuple([z.string(), Evidence])))).default({}),
});
const Dataset = z.array(Sample);

const F1_THRESHOLD = 0.3;

interface Tally {
  sessions: number;
  turns: number;
  memories: number;
  entities: number;
  triplets: number;
  observations: number;
  unresolved: number;
  covered: number;
  lexical: number;
  turnsWithMemory: number;
  turnsWithObservation: number;
  memoriesOnObservedTurns: number;
  ms: number;
  /** CPU time (user + system) spent extracting; steadier than wall time on a busy machine. */
  cpuMs: number;
  kinds: Map<string, number>;
}

const emptyTally = (): Tally => ({
  sessions: 0,
  turns: 0,
  memories: 0,
  entities: 0,
  triplets: 0,
  observations: 0,
  unresolved: 0,
  covered: 0,
  lexical: 0,
  turnsWithMemory: 0,
  turnsWithObservation: 0,
  memoriesOnObservedTurns: 0,
  ms: 0,
  cpuMs: 0,
  kinds: new Map(),
});

/** "1:56 pm on 8 May, 2023" -> ISO; the dataset's session times are local, read here as UTC. */
export function parseSessionTime(text: string): string {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})/i.exec(text);
  if (!m) throw new Error(`unparseable session time: ${text}`);
  const month = MONTHS[(m[5] ?? '').toLowerCase()];
  if (month === undefined) throw new Error(`unknown month in session time: ${text}`);
  const hour = (Number(m[1]) % 12) + ((m[3] ?? '').toLowerCase() === 'pm' ? 12 : 0);
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))).toISOString();
}

export function tokenF1(a: string, b: string): number {
  const ta = contentTokens(a);
  const tb = contentTokens(b);
  if (ta.length === 0 || tb.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const t of tb) counts.set(t, (counts.get(t) ?? 0) + 1);
  let overlap = 0;
  for (const t of ta) {
    const n = counts.get(t) ?? 0;
    if (n > 0) {
      overlap++;
      counts.set(t, n - 1);
    }
  }
  if (overlap === 0) return 0;
  const p = overlap / ta.length;
  const r = overlap / tb.length;
  return (2 * p * r) / (p + r);
}

function normaliseDiaId(id: string): string {
  return id.trim().replace(/^D:?(\d+):0*(\d+)$/, 'D$1:$2');
}

function sessionNumbers(conversation: Record<string, unknown>): number[] {
  return Object.keys(conversation)
    .map((k) => /^session_(\d+)$/.exec(k)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

function score(tally: Tally, turns: z.infer<typeof Turn>[], result: ExtractionResult, observations: Array<[string, string | string[]]>): void {
  const indexOf = new Map(turns.map((t, i) => [t.dia_id, i]));
  const byTurn = new Map<number, string[]>();
  for (const m of result.memories) {
    for (const s of m.sources) byTurn.set(s, [...(byTurn.get(s) ?? []), m.content]);
    tally.kinds.set(m.kind, (tally.kinds.get(m.kind) ?? 0) + 1);
  }
  const observed = new Set<number>();
  for (const [fact, evidence] of observations) {
    // A few ids are malformed in the source ("D:11:26", "D30:05", "D8:6; D9:17"): normalise before lookup.
    const ids = (Array.isArray(evidence) ? evidence : [evidence]).flatMap((e) => e.split(/[;,]\s*/)).map(normaliseDiaId);
    const idx = ids.map((id) => indexOf.get(id)).filter((i): i is number => i !== undefined);
    if (idx.length === 0) {
      tally.unresolved++;
      continue;
    }
    tally.observations++;
    for (const i of idx) observed.add(i);
    const memories = idx.flatMap((i) => byTurn.get(i) ?? []);
    if (memories.length > 0) tally.covered++;
    if (memories.some((m) => tokenF1(m, fact) >= F1_THRESHOLD)) tally.lexical++;
  }
  tally.turnsWithMemory += byTurn.size;
  tally.turnsWithObservation += observed.size;
  tally.memoriesOnObservedTurns += result.memories.filter((m) => m.sources.some((s) => observed.has(s))).length;
}

function add(into: Tally, from: Tally): void {
  for (const k of Object.keys(into) as Array<keyof Tally>) {
    if (k === 'kinds') for (const [kind, n] of from.kinds) into.kinds.set(kind, (into.kinds.get(kind) ?? 0) + n);
    else into[k] += from[k];
  }
}

const pct = (n: number, d: number): string => (d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`);

function row(name: string, t: Tally): string[] {
  return [
    name,
    String(t.sessions),
    String(t.turns),
    String(t.memories),
    (t.memories / Math.max(1, t.turns)).toFixed(2),
    String(t.entities),
    String(t.triplets),
    String(t.observations),
    pct(t.covered, t.observations),
    pct(t.lexical, t.observations),
    pct(t.memoriesOnObservedTurns, t.memories),
    (t.turns / Math.max(1e-9, t.ms / 1000)).toFixed(0),
    (t.turns / Math.max(1e-9, t.cpuMs / 1000)).toFixed(0),
  ];
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join('  ')).join('\n');
}

async function main(): Promise<void> {
  const path = resolve(process.cwd(), process.argv[2] ?? '../shared/data/locomo-dev.json');
  const data = Dataset.parse(JSON.parse(await readFile(path, 'utf8')));
  const llm = new HeuristicLlm();
  await llm.ready();
  const rows: string[][] = [];
  const total = emptyTally();
  for (const sample of data) {
    const tally = emptyTally();
    for (const n of sessionNumbers(sample.conversation)) {
      const turns = z.array(Turn).parse(sample.conversation[`session_${n}`]);
      const occurredAt = parseSessionTime(String(sample.conversation[`session_${n}_date_time`] ?? ''));
      const messages: ExtractMessage[] = turns.map((t, index) => ({
        index,
        type: 'message',
        role: 'user',
        speaker: t.speaker,
        content: t.text,
        occurredAt,
      }));
      const started = performance.now();
      const cpu = process.cpuUsage();
      const { result } = await llm.extract({ messages, knownEntities: [] });
      tally.ms += performance.now() - started;
      const used = process.cpuUsage(cpu);
      tally.cpuMs += (used.user + used.system) / 1000;
      tally.sessions++;
      tally.turns += turns.length;
      tally.memories += result.memories.length;
      tally.entities += result.entities.length;
      tally.triplets += result.triplets.length;
      const observations = Object.values(sample.observation[`session_${n}_observation`] ?? {}).flat();
      score(tally, turns, result, observations);
    }
    rows.push(row(sample.sample_id, tally));
    add(total, tally);
  }
  rows.push(row('all', total));
  await llm.close();
  const header = [
    'conversation',
    'sessions',
    'turns',
    'memories',
    'mem/turn',
    'entities',
    'triplets',
    'obs',
    'coverage',
    `lex-F1>=${F1_THRESHOLD}`,
    'mem-on-obs-turn',
    'turns/s',
    'turns/cpu-s',
  ];
  const kinds = [...total.kinds]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  process.stdout.write(`${table([header, ...rows])}\n\nkinds: ${kinds}\n`);
  process.stdout.write(
    `unresolved evidence ids: ${total.unresolved}; turns with a memory: ${total.turnsWithMemory}/${total.turns}; ` +
      `turns with an observation: ${total.turnsWithObservation}\n` +
      'coverage: observations whose evidence turn yielded a memory; lex-F1: ... and one of those memories has token-F1 >= ' +
      `${F1_THRESHOLD}; mem-on-obs-turn: memories from turns that carry an observation; turns/cpu-s: CPU time only\n`,
  );
}

// Run only as a script, so the helpers above can be imported elsewhere.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
