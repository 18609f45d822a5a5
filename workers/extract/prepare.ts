import type { EventToExtract } from '../../src/db/sql/extract-events.js';
import { clampTime, storableTime } from '../../src/input.js';
import { contentHash, ftsDocument, normalizeText } from '../../src/domain/text.js';
import type { ExtractMessage, ExtractionResult } from '../../src/providers/llm/types.js';
import type { MemoryKind } from '../../src/domain/vocabulary.js';
import { slotKeyText, slotOf, type Slot } from '../../src/domain/slots.js';

/** Messages for an extractor: small integer indexes, never UUIDs. */
export function toMessages(events: EventToExtract[]): ExtractMessage[] {
  return events.map((e, index) => {
    const speaker = typeof e.metadata?.speaker === 'string' ? e.metadata.speaker : typeof e.metadata?.name === 'string' ? e.metadata.name : undefined;
    return { index, type: e.type, role: e.role ?? undefined, speaker, content: e.content, occurredAt: clampTime(e.occurred_at) };
  });
}

/** Entity identity: NFKC, lower case, single spaces, no surrounding punctuation or possessive. */
export function normalizeEntityName(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/['’]s\b/g, '')
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}+#]+$/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export interface PreparedEntity {
  name: string;
  normalized: string;
  type: string;
  description: string;
  ftsDoc: string;
  eventIds: string[];
}

export interface PreparedMemory {
  kind: MemoryKind;
  content: string;
  hash: string;
  ftsDoc: string;
  importance: number;
  confidence: number;
  eventTime: string | null;
  timePrecision: string | null;
  subject: string | null;
  entities: string[];
  eventIds: string[];
  occurredAt: string;
  /** What it states a value of (src/domain/slots.ts), for the kinds that state values. */
  slot: Slot | null;
}

export interface PreparedTriplet {
  source: string;
  relation: string;
  target: string;
  description: string;
  eventIds: string[];
  validAt: string;
}

export interface Prepared {
  entities: PreparedEntity[];
  memories: PreparedMemory[];
  triplets: PreparedTriplet[];
}

/**
 * Maps an extraction (message indexes) to rows (event ids): entities deduplicated by normalised
 * name + type with the union of their sources; memories deduplicated by normalised content; every
 * triplet end resolvable to an entity (added as `concept` when the extractor forgot it).
 */
export function prepare(result: ExtractionResult, events: EventToExtract[]): Prepared {
  const eventIdsOf = (sources: number[]) => [...new Set(sources.map((i) => events[i]?.id).filter((id): id is string => id !== undefined))];
  // Clamped: an event stored before the boundary checked the range must not fail the write.
  const latest = (ids: string[]) => clampTime(Math.max(...ids.map((id) => events.find((e) => e.id === id)?.occurred_at.getTime() ?? 0)));
  const entities = new Map<string, PreparedEntity>();
  // Normalised names of `entities`: a set, since a large pass has thousands of each (a scan per
  // triplet end was quadratic).
  const names = new Set<string>();
  const addEntity = (name: string, type: string, description: string, eventIds: string[]) => {
    const normalized = normalizeEntityName(name);
    if (!normalized || eventIds.length === 0) return;
    names.add(normalized);
    const key = `${normalized}\u0000${type}`;
    const found = entities.get(key);
    if (found) {
      found.eventIds = [...new Set([...found.eventIds, ...eventIds])];
      if (!found.description && description) found.description = description;
    } else entities.set(key, { name: name.trim(), normalized, type: type.toLowerCase(), description, ftsDoc: ftsDocument(`${name} ${description}`), eventIds });
  };
  for (const e of result.entities) addEntity(e.name, e.type, e.description, eventIdsOf(e.sources));
  const known = (name: string) => names.has(normalizeEntityName(name));

  const memories = new Map<string, PreparedMemory>();
  for (const m of result.memories) {
    const eventIds = eventIdsOf(m.sources);
    if (eventIds.length === 0) continue; // no evidence, no memory
    const norm = normalizeText(m.content);
    const found = memories.get(norm);
    if (found) {
      found.eventIds = [...new Set([...found.eventIds, ...eventIds])];
      continue;
    }
    // A model may answer any text here; a time the database cannot store is dropped, not fatal.
    const eventTime = storableTime(m.event_time);
    const importance = Math.max(m.importance, ...eventIds.map((id) => events.find((e) => e.id === id)?.importance ?? 0));
    // An event the agent sent as a decision (type "decision": HTTP, MCP remember, the client) makes decisions.
    const decided = m.kind !== 'procedure' && eventIds.some((id) => events.find((e) => e.id === id)?.type === 'decision');
    const slot = slotOf(decided ? 'decision' : m.kind, m.content, m.slot);
    // "We moved inventory to Postgres over the weekend" happened, and it is what holds now: a fact with a slot.
    const kind: MemoryKind = decided ? 'decision' : m.kind === 'episode' && slot !== null ? 'fact' : m.kind;
    memories.set(norm, {
      kind,
      content: m.content.trim(),
      hash: contentHash(norm),
      ftsDoc: ftsDocument(`${m.content} ${slotKeyText(slot)}`),
      importance: Math.min(10, importance),
      confidence: m.confidence,
      eventTime,
      timePrecision: eventTime ? (m.time_precision ?? 'exact') : null,
      subject: m.subject ?? null,
      entities: m.entities,
      eventIds,
      occurredAt: latest(eventIds),
      slot,
    });
  }
  const triplets: PreparedTriplet[] = [];
  for (const t of result.triplets) {
    const eventIds = eventIdsOf(t.sources);
    if (eventIds.length === 0) continue;
    for (const end of [t.source, t.target]) if (!known(end)) addEntity(end, 'concept', '', eventIds);
    triplets.push({
      source: t.source,
      relation: t.relation
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, '_')
        .replace(/^_|_$/g, ''),
      target: t.target,
      description: t.description,
      eventIds,
      validAt: latest(eventIds),
    });
  }
  return { entities: [...entities.values()], memories: [...memories.values()], triplets: triplets.filter((t) => t.relation.length > 0) };
}
