import type { EventToExtract } from '../../src/db/sql/extract-events.js';
import { clampTime, storableTime } from '../../src/input.js';
import { contentHash, ftsDocument, normalizeText } from '../../src/domain/text.js';
import type { ExtractMessage, ExtractionResult } from '../../src/providers/llm/types.js';
import type { MemoryKind } from '../../src/domain/vocabulary.js';
import { slotOf, type Slot } from '../../src/domain/slots.js';
import { slotKeyText } from '../../src/domain/slot-keys.js';
import { fullNameOf, isEntityName, isFullName, isNamePart, isRolePhrase, isSpeakerWord } from '../../src/domain/entity-names.js';

/** Messages for an extractor: small integer indexes, never UUIDs. */
export function toMessages(events: EventToExtract[]): ExtractMessage[] {
  return events.map((e, index) => ({
    index,
    type: e.type,
    role: e.role ?? undefined,
    speaker: speakerOf(e),
    content: e.content,
    occurredAt: clampTime(e.occurred_at),
  }));
}

/** Who said an event, when its metadata names them (`speaker`, else `name`). */
function speakerOf(e: Pick<EventToExtract, 'metadata'>): string | undefined {
  return typeof e.metadata?.speaker === 'string' ? e.metadata.speaker : typeof e.metadata?.name === 'string' ? e.metadata.name : undefined;
}

/** The speakers of a memory's events: the slot reader reads them as the user (slotOf). */
function speakersOf(events: EventToExtract[], ids: readonly string[]): string[] {
  const said = new Set(ids);
  return [...new Set(events.filter((e) => said.has(e.id)).flatMap((e) => speakerOf(e) ?? []))];
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

/** Relations that say what the source is ("Priya Raman is our tech lead"): a role as target makes the source a person. */
const ROLE_RELATIONS = new Set(['is', 'is_a', 'works_as', 'has_role', 'role']);
/** Types a first-name or surname mention may carry before it is known to be a person's. */
const NAME_TYPES = new Set(['person', 'other', 'concept']);

/**
 * Maps an extraction (message indexes) to rows (event ids): entities deduplicated by normalised
 * name + type with the union of their sources; memories deduplicated by normalised content; every
 * triplet end resolvable to an entity (added as `concept` when the extractor forgot it). The entity
 * gate applies to every extractor: speaker words (the user, the assistant) and code fragments are
 * no entities, and a triplet with such an end is dropped; see src/domain/entity-names.ts.
 * A first name or surname of exactly one full name of the pass joins it (persons()).
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
    if (!normalized || eventIds.length === 0 || !isEntityName(name) || isSpeakerWord(normalized)) return;
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
  const admissible = (name: string) => isEntityName(name) && !isSpeakerWord(normalizeEntityName(name));

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
    const slot = slotOf(decided ? 'decision' : m.kind, m.content, m.slot, speakersOf(events, eventIds));
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
    if (eventIds.length === 0 || !admissible(t.source) || !admissible(t.target)) continue;
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
  const kept = triplets.filter((t) => t.relation.length > 0);
  const canonical = persons(entities, kept);
  const rename = (name: string) => canonical.get(normalizeEntityName(name)) ?? name;
  for (const m of memories.values()) {
    if (m.subject !== null) m.subject = admissible(m.subject) ? rename(m.subject) : isSpeakerWord(normalizeEntityName(m.subject)) ? m.subject : null;
    m.entities = [...new Set(m.entities.filter(admissible).map(rename))];
  }
  for (const t of kept) {
    t.source = rename(t.source);
    t.target = rename(t.target);
  }
  return {
    entities: [...entities.values()],
    memories: [...memories.values()],
    triplets: kept.filter((t) => normalizeEntityName(t.source) !== normalizeEntityName(t.target)),
  };
}

/**
 * Person resolution within one pass (one user's events): an entity that is the source of a role
 * ("… is our tech lead") is a person; a single capitalised word that is the first name or surname
 * of exactly one full name of the pass ("Priya", "Raman" beside "Priya Raman") is merged into it,
 * which is then a person too. Two full names sharing the word keep it apart. Mutates `entities`;
 * returns the merged names (normalised) → the full name to use instead.
 */
function persons(entities: Map<string, PreparedEntity>, triplets: PreparedTriplet[]): Map<string, string> {
  const roleHolders = new Set(triplets.filter((t) => ROLE_RELATIONS.has(t.relation) && isRolePhrase(t.target)).map((t) => normalizeEntityName(t.source)));
  for (const e of entities.values()) if (roleHolders.has(e.normalized) && NAME_TYPES.has(e.type)) e.type = 'person';
  const full = [...entities.values()].filter((e) => NAME_TYPES.has(e.type) && isFullName(e.name));
  const renamed = new Map<string, string>();
  for (const [key, e] of entities) {
    if (!NAME_TYPES.has(e.type) || !isNamePart(e.name)) continue;
    const name = fullNameOf(e.name, [...new Set(full.map((f) => f.name))]);
    const target = name === undefined ? undefined : full.find((f) => f.name === name);
    if (!target) continue;
    target.type = 'person';
    target.eventIds = [...new Set([...target.eventIds, ...e.eventIds])];
    if (!target.description && e.description) target.description = e.description;
    renamed.set(e.normalized, target.name);
    entities.delete(key);
  }
  // A full name typed twice (say "other" and "person") is one entity, the person.
  const byName = new Map<string, PreparedEntity>();
  for (const [key, e] of entities) {
    const first = byName.get(e.normalized);
    if (first && (first.type === 'person' || e.type === 'person') && NAME_TYPES.has(first.type) && NAME_TYPES.has(e.type)) {
      first.type = 'person';
      first.eventIds = [...new Set([...first.eventIds, ...e.eventIds])];
      entities.delete(key);
    } else if (!first) byName.set(e.normalized, e);
  }
  return renamed;
}
