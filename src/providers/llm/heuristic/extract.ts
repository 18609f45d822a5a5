/**
 * The rule-based extraction pass: message -> segments -> per-sentence verdict, third-person
 * content, time, entity mentions and triplets; then entities are settled once for the batch and
 * every reference is mapped to the settled names. The result is parsed with the contract's
 * schema before it leaves, so a rule bug surfaces here and not in a worker.
 */
import { ExtractionResult, type ExtractInput, type ExtractMessage } from '../types.js';
import type { MemoryKind } from '../../../domain/vocabulary.js';
import { analyse, analyseChinese, type Analysis } from './analyse.js';
import type { ChineseTagger } from './chinese.js';
import { assistantStatement, isChitChat } from './chatter.js';
import { classify, contentWordCount, isQuestion, withoutRequests } from './classify.js';
import { codeMentions, languageMentions, maskCode, type Mention } from './entities.js';
import { EMPHASIS_RE } from './lexicon.js';
import { findProcedures } from './procedure.js';
import { EntityRegistry, entityKey } from './registry.js';
import { fullNameOf, isFullName } from '../../../domain/entity-names.js';
import { changesState, readSlot } from '../../../domain/slots.js';
import { categoryWords } from '../../../domain/slot-keys.js';
import { cleanSentence, dropTagQuestion, selfLabel, toThirdPerson, type SelfLabel } from './rewrite.js';
import { hasCjk, splitSegments } from './sentences.js';
import { resolveTime, type ResolvedTime } from './time.js';
import { heuristicTriage } from './triage.js';
import { findTriplets } from './triplets.js';
import { attachmentCaptions, captionMemory, replyUnit } from './turn-units.js';

export interface ExtractTools {
  chinese: ChineseTagger;
  lemma: (word: string, tags: ReadonlySet<string>) => string;
}

interface DraftMemory {
  kind: MemoryKind;
  content: string;
  importance: number;
  confidence: number;
  subjectKey: string | null;
  time: ResolvedTime | null;
  sources: Set<number>;
  entityKeys: Set<string>;
}

interface DraftTriplet {
  sourceKey: string;
  relation: string;
  targetKey: string;
  description: string;
  sources: Set<number>;
}

interface Batch {
  registry: EntityRegistry;
  memories: Map<string, DraftMemory>;
  triplets: Map<string, DraftTriplet>;
  participants: string[];
  tools: ExtractTools;
  /** Full names of known persons (this user's graph), whose first names and surnames name them. */
  knownPeople: string[];
  /** Two-capitalised-word runs of the batch's messages (possible full names). */
  writtenNames: string[];
}

interface MessageContext {
  msg: ExtractMessage;
  self: SelfLabel;
  /** Entity name for the speaker: the speaker's name, else the role ("user"). */
  speakerName: string;
}

/**
 * Segments (sentences, list items, code blocks) longer than this are not made memory units: no
 * statement worth keeping is that long, and the entity and triplet patterns cost more than linear
 * time on long runs of letters (a 400 kB sentence kept one extraction pass busy for minutes). Its
 * text stays recallable through its chunks.
 */
export const MAX_SEGMENT_CHARS = 2_000;

export function extractFromMessages(input: ExtractInput, tools: ExtractTools): ExtractionResult {
  const participants = [...new Set(input.messages.map((m) => m.speaker?.trim()).filter((s): s is string => !!s))];
  const knownPeople = input.knownEntities.filter((k) => k.type === 'person' && isFullName(k.name)).map((k) => k.name);
  // Full names written in this batch: a first name they share with a known person names neither.
  const written = input.messages.flatMap((m) => m.content.match(/\p{Lu}[\p{L}'-]+ \p{Lu}[\p{L}'-]+/gu) ?? []);
  const batch: Batch = {
    registry: new EntityRegistry(input.knownEntities),
    memories: new Map(),
    triplets: new Map(),
    participants,
    tools,
    knownPeople,
    writtenNames: [...new Set(written)],
  };

  input.messages.forEach((msg, m) => {
    if (!heuristicTriage(msg.content, msg.type).keep) return;
    // Raw tool output (JSON) is not prose: no sentence in it is a memory.
    if (/^tool/.test(msg.type) && /^\s*[[{]/.test(msg.content)) return;
    const ctx: MessageContext = {
      msg,
      self: selfLabel(msg.speaker, msg.role),
      speakerName: msg.speaker?.trim() || (msg.role?.trim() || 'user').toLowerCase(),
    };
    if (msg.speaker?.trim()) batch.registry.add(ctx.speakerName, 'person', msg.index, { description: 'conversation participant' });

    // A feedback event opens with the recall's question ("Q: …", src/memories/feedback.ts): not a statement.
    const said = msg.type === 'feedback' ? msg.content.replace(/^Q:[^\n]*\n?/, '') : msg.content;
    // An attached photo's caption is a unit of its own ("Melanie shared a photo of …"), never part of a sentence.
    const { text: content, captions } = msg.type === 'message' ? attachmentCaptions(said) : { text: said, captions: [] };
    const segments = splitSegments(content).filter((s) => s.text.length <= MAX_SEGMENT_CHARS);
    const runs = findProcedures(segments);
    const used = new Set(runs.flatMap((r) => r.used));
    for (const run of runs) {
      const keys = addMentions(batch, codeMentions(run.content), msg.index);
      addMemory(batch, {
        kind: 'procedure',
        content: run.content,
        importance: EMPHASIS_RE.test(run.content) ? 8 : 7,
        confidence: 0.85,
        subjectKey: null,
        time: null,
        sources: new Set([msg.index]),
        entityKeys: new Set(keys),
      });
    }
    // An assistant's chat turn gives memory only where it confirms something of the user's world.
    const assistantChat = msg.type === 'message' && ctx.msg.role?.trim().toLowerCase() === 'assistant' && !msg.speaker?.trim();
    segments.forEach((seg, i) => {
      if (used.has(i) || seg.kind === 'code') return;
      const text = assistantChat ? assistantStatement(seg.text) : seg.text;
      if (text === null) return;
      const next = segments[i + 1];
      const joined = !assistantChat && next && next.kind !== 'code' && !used.has(i + 1) ? withNewValue(text, next.text) : null;
      if (joined !== null) used.add(i + 1);
      processSentence(batch, ctx, joined ?? text);
    });
    if (msg.type === 'message' && !assistantChat) turnUnits(batch, ctx, captions, input.messages[m - 1]);
  });
  return ExtractionResult.parse(settle(batch));
}

/**
 * "I no longer use bash. zsh with a small .zshrc": a value given up, then a verbless fragment
 * naming a value of the same category, is one change said in two pieces. Read alone, the first
 * says only what stopped and the second is no statement at all; joined ("I no longer use bash,
 * zsh with a small .zshrc"), the slot reader sees the old value and the new one. Returns the
 * joined sentence, or null when the pieces are not such a pair.
 */
export function withNewValue(sentence: string, fragment: string): string | null {
  // Cheapest first (this runs for every pair of sentences): the fragment names a known value at all.
  const next = fragment.trim();
  if (next === '' || hasCjk(next) || categoryWords(next) === '' || isQuestion(next)) return null;
  const given = readSlot(sentence);
  if (given === null || !given.negated || given.replaces.length === 0 || given.value.length > 0) return null;
  const category = categoryWords(given.replaces.join(' '));
  if (category === '' || analyse(next).hasVerb) return null;
  const offered = readSlot(next);
  if (offered === null || offered.value.length === 0 || categoryWords(offered.value.join(' ')) !== category) return null;
  return `${sentence.trim().replace(/[.!;]+$/, '')}, ${next}`;
}

/**
 * A chat turn's captions, each a unit, and, when the turn made no unit at all, one unit of what it
 * states with the question it answers (turn-units.ts). Low importance and confidence: a reply
 * without its own subject or verb is evidence of what was said, not a settled fact.
 */
function turnUnits(batch: Batch, ctx: MessageContext, captions: readonly string[], before: ExtractMessage | undefined): void {
  const index = ctx.msg.index;
  const speaker = ctx.msg.speaker?.trim() ? batch.registry.add(ctx.speakerName, 'person', index) : null;
  const unit = (content: string, sources: number[]) =>
    addMemory(batch, {
      kind: 'episode',
      content,
      importance: TURN_UNIT.importance,
      confidence: TURN_UNIT.confidence,
      subjectKey: speaker,
      time: resolveTime(content, ctx.msg.occurredAt),
      sources: new Set(sources),
      entityKeys: new Set(speaker ? [speaker] : []),
    });
  const made = [...batch.memories.values()].some((d) => d.sources.has(index));
  for (const caption of captions) unit(captionMemory(ctx.self.start, caption), [index]);
  if (made) return;
  const reply = replyUnit(ctx.msg, before, ctx.self, batch.participants);
  if (reply) unit(reply.content, reply.sources);
}
/** A caption or a reply unit: below a classified episode (4) and its confidence (0.75). Not measured. */
const TURN_UNIT = { importance: 3, confidence: 0.6 } as const;

function processSentence(batch: Batch, ctx: MessageContext, raw: string, depth = 0): void {
  const clean = dropTagQuestion(cleanSentence(raw, batch.participants));
  // Questions and pure reactions are dropped before the (comparatively costly) NLP parse.
  // A lead-in ending in ":" introduces what follows and says nothing alone.
  if (!clean || isQuestion(clean) || /:$/.test(clean) || contentWordCount(clean) < 1 || isChitChat(clean)) return;
  const stated = depth === 0 ? withoutRequests(clean) : null;
  if (stated !== null) {
    for (const part of stated) if (part.split(/\s+/).length >= 3) processSentence(batch, ctx, part, 1);
    return;
  }
  const cjk = hasCjk(clean);
  const parsed = cjk ? analyseChinese(clean) : analyse(clean);
  // Only chat drops its subject ("Lost my job yesterday"); a document's "Embed — batched calls" is a heading.
  const a = ctx.msg.type === 'message' || parsed.droppedSubject === null ? parsed : withoutDroppedSubject(parsed);
  const verdict = classify(a) ?? changedValue(clean, ctx);
  if (!verdict) {
    // "They moved it again, standup is at 10:15 from this week": a vague first clause hides a
    // statement in the next one; each clause of three words or more is tried alone, once.
    const parts = clean.split(/[,;]\s+/).filter((part) => part.split(/\s+/).length >= 3);
    if (depth === 0 && parts.length > 1) for (const part of parts) processSentence(batch, ctx, part, 1);
    return;
  }

  const { registry } = batch;
  const index = ctx.msg.index;
  const self = cjk ? selfLabel(ctx.msg.speaker, ctx.msg.role, true) : ctx.self;
  const content = toThirdPerson(clean, a, self);
  const code = codeMentions(clean);
  const language: Mention[] = cjk
    ? batch.tools.chinese.mentions(clean)
    : languageMentions(code.length > 0 ? analyse(maskCode(clean)).terms : a.terms, code.length > 0 ? maskCode(clean) : clean);
  const mentions = dedupeMentions([...code, ...language, ...knownPersonMentions(clean, batch.knownPeople, batch.writtenNames)]);
  const keys = addMentions(batch, mentions, index);

  const aboutSpeaker = a.firstPerson || a.droppedSubject !== null || a.subjectHead === 'we' || /^我们/.test(clean);
  let subjectKey: string | null = null;
  if (aboutSpeaker) {
    const description = ctx.msg.speaker ? 'conversation participant' : `the ${ctx.speakerName}`;
    subjectKey = registry.add(ctx.speakerName, 'person', index, { description });
  } else {
    const head = a.subjectHead;
    const bySubject = head ? mentions.find((m) => m.name.toLowerCase().split(' ').includes(head)) : undefined;
    const person = mentions.find((m) => m.type === 'person');
    const chosen = bySubject ?? person;
    subjectKey = chosen ? entityKey(chosen.name) : null;
  }
  if (subjectKey && !registry.has(subjectKey)) subjectKey = null;

  const names = mentions.map((m) => m.name).filter((n) => registry.has(entityKey(n)));
  if (aboutSpeaker || ctx.msg.speaker) names.push(ctx.speakerName);
  const speakerForWe = aboutSpeaker || ctx.msg.speaker ? ctx.speakerName : null;
  const tripletContext = { names, speaker: speakerForWe, analysis: cjk ? undefined : a, lemma: batch.tools.lemma, selfAliases: [self.mid] };
  for (const t of findTriplets(content, tripletContext)) {
    // The source is always a known mention; the target may be a new noun phrase, and its cue
    // ("works at", "lives in") is evidence for its type.
    const sourceKey = registry.has(entityKey(t.source)) ? entityKey(t.source) : null;
    // "comes from cold starts": a lower-case target is a thing, whatever place-like cue led to it.
    const targetType = /^\p{Ll}/u.test(t.target) && (t.targetType === 'place' || t.targetType === 'organization') ? 'concept' : t.targetType;
    const targetKey = registry.add(t.target, targetType, index);
    if (!sourceKey || !targetKey || sourceKey === targetKey) continue;
    registry.reference(sourceKey);
    registry.reference(targetKey);
    const id = `${sourceKey}\u0000${t.relation}\u0000${targetKey}`;
    const existing = batch.triplets.get(id);
    if (existing) existing.sources.add(index);
    else batch.triplets.set(id, { sourceKey, relation: t.relation, targetKey, description: content, sources: new Set([index]) });
    keys.push(sourceKey, targetKey);
  }

  addMemory(batch, {
    kind: verdict.kind,
    content,
    importance: verdict.importance,
    confidence: verdict.confidence,
    subjectKey,
    time: resolveTime(clean, ctx.msg.occurredAt),
    sources: new Set([index]),
    entityKeys: new Set(subjectKey ? [subjectKey, ...keys] : keys),
  });
}

/**
 * A sentence the classifier passes over but that changes a value ("the landlord bumped rent to
 * $2,050 starting March", "RabbitMQ got swapped out too, it's SQS now") is still a fact worth
 * keeping: the newer value of a slot must exist as a memory to supersede the older one. A user's
 * sentence only; an assistant's restatement adds nothing of its own.
 */
function changedValue(sentence: string, ctx: MessageContext): { kind: MemoryKind; importance: number; confidence: number } | null {
  if (ctx.msg.role?.trim().toLowerCase() === 'assistant' || hasCjk(sentence)) return null;
  const slot = readSlot(sentence);
  if (slot === null || slot.value.length === 0 || !changesState(slot)) return null;
  return { kind: 'fact', importance: CHANGED_VALUE_IMPORTANCE, confidence: CHANGED_VALUE_CONFIDENCE };
}
/** A changed value read by the slot reader alone: a fact of middling importance, less sure than a classified one. */
const CHANGED_VALUE_IMPORTANCE = 6;
const CHANGED_VALUE_CONFIDENCE = 0.7;

function withoutDroppedSubject(a: Analysis): Analysis {
  const past = a.droppedSubject === 'past' || a.droppedSubject === 'perfect';
  return { ...a, droppedSubject: null, pastFirstPerson: a.pastFirstPerson && !past };
}

/**
 * A known person named by full name, first name or surname ("Raman wants…" once "Priya Raman" is
 * known): the full name, when the word names exactly one known person (src/domain/entity-names.ts).
 */
function knownPersonMentions(text: string, people: readonly string[], written: readonly string[]): Mention[] {
  if (people.length === 0) return [];
  const out: Mention[] = [];
  for (const word of new Set(text.match(/\p{Lu}[\p{L}'-]+/gu) ?? [])) {
    const full = fullNameOf(word, [...people, ...written]);
    if (full && people.includes(full) && !out.some((m) => m.name === full)) out.push({ name: full, type: 'person' });
  }
  for (const p of people) if (text.includes(p) && !out.some((m) => m.name === p)) out.push({ name: p, type: 'person' });
  return out;
}

function addMentions(batch: Batch, mentions: readonly Mention[], index: number): string[] {
  const keys: string[] = [];
  for (const m of mentions) {
    const key = batch.registry.add(m.name, m.type, index, { ...(m.description ? { description: m.description } : {}), weak: m.weak === true });
    if (key) keys.push(key);
  }
  return keys;
}

/** One mention per name within a sentence; the first (most specific extractor) wins. */
function dedupeMentions(mentions: Mention[]): Mention[] {
  const seen = new Set<string>();
  return mentions.filter((m) => {
    const k = m.name.toLowerCase();
    if (!m.name || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** The same sentence said twice is one memory with both sources. */
function addMemory(batch: Batch, m: DraftMemory): void {
  const id = `${m.kind}\u0000${m.content.toLowerCase()}`;
  const existing = batch.memories.get(id);
  if (!existing) {
    batch.memories.set(id, m);
    return;
  }
  for (const s of m.sources) existing.sources.add(s);
  for (const k of m.entityKeys) existing.entityKeys.add(k);
  existing.importance = Math.max(existing.importance, m.importance);
}

function settle(batch: Batch): ExtractionResult {
  const { entities, names } = batch.registry.finalize();
  const sorted = (s: Set<number>): number[] => [...s].sort((x, y) => x - y);
  const memories = [...batch.memories.values()].map((m) => ({
    kind: m.kind,
    content: m.content,
    importance: m.importance,
    confidence: m.confidence,
    subject: (m.subjectKey && names.get(m.subjectKey)) || null,
    event_time: m.time?.event_time ?? null,
    time_precision: m.time?.time_precision ?? null,
    sources: sorted(m.sources),
    entities: [...new Set([...m.entityKeys].map((k) => names.get(k)).filter((n): n is string => !!n))],
  }));
  const triplets = [...batch.triplets.values()].flatMap((t) => {
    const source = names.get(t.sourceKey);
    const target = names.get(t.targetKey);
    return source && target ? [{ source, relation: t.relation, target, description: t.description, sources: sorted(t.sources) }] : [];
  });
  return { memories, entities, triplets };
}
