/**
 * Current truth for evidence (docs/recall.md "Current truth"). A chunk states what its event said;
 * when the memories extracted from that event were superseded (a newer value of the same slot, or
 * a correction), the chunk no longer holds: it is marked `current: false` with `superseded_by`,
 * scored × STALE_WEIGHT, and the statement that replaced it — the chunk of the superseding
 * memory's event, or the corrected memory itself — is brought in with at least its relevance, so
 * the current value ranks first in every mode that returns evidence.
 */
import { chunksOfMemories, memoriesOfEvents, type EventMemory } from '../db/sql/recall-evidence.js';
import { loadMemories } from '../db/sql/recall.js';
import { asksAboutPast } from '../domain/query-intent.js';
import { relate } from '../domain/slot-relate.js';
import { readSlot, type Slot } from '../domain/slots.js';
import { slotKeyText } from '../domain/slot-keys.js';
import { ftsQuery } from '../domain/text.js';
import type { RecallContext } from './context.js';
import { informative } from './match.js';
import { withSynonyms } from '../domain/synonyms.js';
import { memoryResult } from './results.js';
import type { Candidate } from './rank.js';

/**
 * Which memories of an event speak to this query: those sharing the most query terms (in their
 * words or their slot's category and attribute words); all of them when none shares any (the
 * chunk matched through its context). "Planning Q2 events. Our events budget is 40k" speaks to
 * "how much money for events this quarter?" through its budget, not its planning.
 */
function relevantTo(terms: ReadonlySet<string>, memories: EventMemory[]): EventMemory[] {
  if (memories.length <= 1) return memories;
  const shared = memories.map((m) => ftsQuery(`${m.content} ${slotKeyText(m.slot)}`).filter((t) => terms.has(t)).length);
  const most = Math.max(0, ...shared);
  return most === 0 ? memories : memories.filter((_, i) => shared[i] === most);
}

/**
 * The query asks about what changed in these superseded memories: one of its words (or their
 * synonyms) is in a memory's slot, its subject, value, or their category and attribute words. A
 * statement of several things goes stale for the thing that changed, not for the rest: "two-week
 * sprints, planning on Monday mornings" still answers "what day do we hold planning?" after the
 * sprints became one week. A memory superseded without a slot (a model's or a similarity's UPDATE) reaches
 * every query, and so does a change when the chunk holds none of the query's words (it was found
 * by its vector or its context, so nothing says which of its statements the query asks about).
 */
function asksAboutChange(focus: ReadonlySet<string>, memories: EventMemory[]): boolean {
  if (focus.size === 0) return true;
  return memories.some((m) => {
    if (m.slot === null) return true;
    const said = [...m.slot.about, ...ftsQuery(`${m.slot.about.join(' ')} ${m.slot.value.join(' ')} ${m.slot.replaces.join(' ')} ${slotKeyText(m.slot)}`)];
    return said.some((t) => focus.has(t));
  });
}

/**
 * An assistant's turn repeats a memory of the turn it answers when it names the memory's value or
 * shares a word of its subject ("Noted: one approval to merge" after "PRs need one approval to
 * merge"); an answer about something else does not take the memory's staleness.
 */
function repeats(answer: string, m: EventMemory): boolean {
  if (m.slot === null || answer === '') return false;
  const lower = answer.toLowerCase();
  if (m.slot.value.some((v) => lower.includes(v))) return true;
  const words = new Set(ftsQuery(answer));
  return m.slot.about.some((t) => words.has(t));
}

/**
 * Marks the chunk candidates whose statements no longer hold (as of the recall's as_of, else now)
 * and returns the candidates that replace them: for each stale chunk, the chunks stating its
 * memory's current version (or that version itself when a correction made it), each with at least
 * the stale chunk's relevance. Candidates already present are lifted instead of duplicated.
 */
export async function supersedeEvidence(ctx: RecallContext, chunks: Candidate[], toCandidate: ChunkToCandidate): Promise<Candidate[]> {
  const eventIds = [...new Set(chunks.flatMap((c) => c.result.source.event_ids))];
  if (eventIds.length === 0) return [];
  const rows = await ctx.run((tx) => memoriesOfEvents(tx, eventIds));
  if (rows.length === 0) return [];
  const asOf = ctx.input.as_of ? new Date(ctx.input.as_of).getTime() : undefined;
  const text = new Map(chunks.flatMap((c) => c.result.source.event_ids.map((e) => [e, c.result.content] as const)));
  const byEvent = new Map<string, EventMemory[]>();
  for (const r of rows)
    if (!r.corrected && (!r.echo || repeats(text.get(r.event_id) ?? '', r))) byEvent.set(r.event_id, [...(byEvent.get(r.event_id) ?? []), r]);
  const terms = new Set(ctx.terms);
  const focus = new Set(withSynonyms(informative(ctx.terms)).terms);
  const pastQuestion = asksAboutPast(ctx.input.query);
  // A memory stops holding at its successor's valid_from; as_of before that, it still held.
  const heldThen = (m: EventMemory) => m.status === 'active' || (asOf !== undefined && (m.superseded_at === null || m.superseded_at.getTime() > asOf));
  const replacedBy = new Map<string, { head: string; rel: number }>();
  const markStale = (c: Candidate, head: string) => {
    c.result.current = false;
    c.result.superseded_by = head;
    // A question about an earlier value ("what did we use before?") keeps it where it ranks.
    if (!pastQuestion) c.signals.current = false;
    replacedBy.set(head, { head, rel: Math.max(replacedBy.get(head)?.rel ?? -Infinity, c.rel) });
  };
  for (const c of chunks) {
    const mems = relevantTo(
      terms,
      c.result.source.event_ids.flatMap((e) => byEvent.get(e) ?? []),
    );
    if (mems.length === 0 || mems.some(heldThen) || mems.some((m) => m.status !== 'superseded')) continue;
    // It answers the query with words of its own that the change left alone.
    if (!asksAboutChange(focus, mems) && ftsQuery(c.result.content).some((t) => focus.has(t))) continue;
    const head = mems.find((m) => m.head_id !== null)?.head_id;
    if (!head) continue;
    markStale(c, head);
  }
  // A turn that made no memory of its own but restates a value that no longer holds ("Noted:
  // standup at 9:30") is as stale as the statement it repeats: its words are read as a slot and
  // compared with the superseded memories of the other candidates.
  const staleSlots = rows.filter((r) => r.status === 'superseded' && r.slot !== null && r.head_id !== null && !heldThen(r));
  // Read only the turns that name one of those values at all (a time as written: 9:30, not 09:30).
  const named = staleSlots.flatMap((m) => (m.slot as Slot).value.map((v) => v.replace(/^0(\d:)/, '$1')));
  if (named.length > 0) {
    for (const c of chunks) {
      if (c.result.current === false || c.result.source.event_ids.some((e) => (byEvent.get(e) ?? []).length > 0)) continue;
      const text = c.result.content.toLowerCase();
      if (!named.some((v) => text.includes(v))) continue;
      const own = readSlot(c.result.content);
      const repeated = own && staleSlots.find((m) => relate(m.slot as Slot, own) === 'same');
      if (repeated?.head_id) markStale(c, repeated.head_id);
    }
  }
  // as_of in the past: the newer statements did not exist yet; nothing is brought in.
  if (replacedBy.size === 0 || asOf !== undefined) return [];
  const heads = [...replacedBy.keys()];
  const staleEvents = new Set(chunks.filter((c) => c.result.current === false).flatMap((c) => c.result.source.event_ids));
  const stating = (await ctx.run((tx) => chunksOfMemories(tx, heads, ctx.scope))).filter((x) => !staleEvents.has(x.chunk.event_id));
  const byId = new Map(chunks.map((c) => [c.result.id, c]));
  const added: Candidate[] = [];
  const covered = new Set<string>();
  for (const { memory_id, chunk } of stating) {
    const rel = (replacedBy.get(memory_id) as { rel: number }).rel;
    covered.add(memory_id);
    const present = byId.get(chunk.id);
    if (present) {
      present.rel = Math.max(present.rel, rel);
      present.replacing = true;
      continue;
    }
    const cand = toCandidate(chunk);
    cand.rel = rel;
    cand.replacing = true;
    byId.set(chunk.id, cand);
    added.push(cand);
  }
  // A correction (PATCH) has no words of its own in any event: the corrected memory is the evidence.
  const uncovered = heads.filter((h) => !covered.has(h));
  if (uncovered.length > 0) {
    const inScope = (m: { dataset: string; session_id: string | null }) =>
      (ctx.scope.dataset === undefined || m.dataset === ctx.scope.dataset) && (ctx.scope.sessionId === undefined || m.session_id === ctx.scope.sessionId);
    for (const m of (await ctx.run((tx) => loadMemories(tx, uncovered))).filter(inScope)) {
      added.push({
        rel: (replacedBy.get(m.id) as { rel: number }).rel,
        replacing: true,
        signals: { occurredAt: m.event_time ?? m.occurred_at, importance: m.importance, version: m.version, rankWeight: m.rank_weight },
        result: memoryResult(m),
      });
    }
  }
  return added;
}

export type ChunkToCandidate = (chunk: import('../db/sql/recall.js').ChunkRow) => Candidate;
