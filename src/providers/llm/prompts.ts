/**
 * Prompts for the OpenAI-compatible LLM provider. Kept apart from the transport so they can be read,
 * diffed and tuned on their own. Compact on purpose: every token here is paid on every extraction.
 */
import { z } from 'zod';
import { ExtractionResult, ReconcileAnswer, type ExtractInput, type ReconcileInput } from './types.js';

export interface PromptMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export const EXTRACTION_SYSTEM_PROMPT = `You extract long-term memory from a conversation or document for an AI agent.
Answer with one JSON object only: {"memories":[...],"entities":[...],"triplets":[...]}.

memories: self-contained statements worth remembering later about the user and their world; skip greetings, thanks,
small talk, the assistant's own acknowledgements and offers, and general explanations.
- kind: fact | preference | decision | plan | procedure | profile | episode | insight
  (fact = objective information; preference = likes, dislikes, wishes; decision = a choice that was made;
  plan = an intended future action; procedure = how to do something; profile = a stable trait of a person;
  episode = something that happened; insight = a lesson or conclusion drawn from experience;
  a change the user made or announced - "we moved X to Y", "we replaced X with Y", "from now on" - is a decision)
- content: one sentence a person would write, naming who or what it is about (never "he", "I" or "the user" alone),
  e.g. "Uses Neovim; wants vim keybindings in examples"; in the language of the source. A changed value states the new
  value and what it replaced ("The desktop app moved from Postgres to SQLite").
- slot: for a statement of a value that can change later, what it is about and which attribute, in a few words
  ("desktop app / local database", "Sam / employer", "team / standup time"); null for events and lessons.
- importance: integer 1-10 (1-3 trivia, 4-6 useful, 7-8 important, 9-10 critical: identity, hard constraints, major decisions).
- confidence: 0-1, how sure the source is (stated = 0.9+, implied = 0.5-0.8, guessed = below 0.5).
- subject: the name of the entity the memory is mainly about, or null.
- event_time: ISO-8601 time the content refers to, resolved against the message time (e.g. "yesterday"); null if none.
- time_precision: exact | day | month | year | relative; null when event_time is null.
- sources: indexes of the supporting messages (at least one).
- entities: names of the entities mentioned.

entities: people, organizations, places, projects, tools, concepts and the like.
- name: the canonical name; reuse the exact name of a known entity when it is the same thing.
- type: one lower-case word: person, organization, place, project, tool, technology, concept, event, file, version or other.
- description: a short description from the text.
- sources: indexes of the messages that mention it.

triplets: relations between entities.
- source and target: entity names; direction is source -> target ("Alice works_at Acme").
- relation: a snake_case verb phrase (works_at, prefers, decided, uses, lives_in, part_of).
- description: one short sentence.
- sources: indexes of the supporting messages.

Use empty arrays when nothing is worth keeping. Never invent facts that the text does not support.`;

/** One message per line as `[index] (occurredAt) speaker: content`; indexes keep UUIDs out of prompts. */
export function formatMessages(messages: ExtractInput['messages']): string {
  return messages.map((m) => `[${m.index}] (${m.occurredAt}) ${m.speaker ?? m.role ?? m.type}: ${m.content}`).join('\n');
}

export function formatKnownEntities(entities: ExtractInput['knownEntities']): string {
  return entities.map((e) => `#${e.id} ${e.name} (${e.type})`).join('\n');
}

export function buildExtractionMessages(input: ExtractInput): PromptMessage[] {
  const parts: string[] = [];
  if (input.knownEntities.length > 0) {
    parts.push(`Known entities (reuse these exact names):\n${formatKnownEntities(input.knownEntities)}`);
  }
  parts.push(`Messages:\n${formatMessages(input.messages)}`);
  parts.push('Extract the memories, entities and triplets as JSON.');
  return [
    { role: 'system', content: EXTRACTION_SYSTEM_PROMPT },
    { role: 'user', content: parts.join('\n\n') },
  ];
}

/** The one corrective turn after an invalid answer: the model sees exactly what was wrong. */
export function buildRetryMessage(error: string): PromptMessage {
  return {
    role: 'user',
    content: `Your previous answer was invalid:\n${error}\nAnswer again with one corrected JSON object of the same shape and nothing else.`,
  };
}

/**
 * The JSON Schema sent as `response_format.json_schema.schema`, derived from the zod schema that
 * parses the answer so the two never drift. `io: 'input'` makes defaulted fields optional.
 */
export function extractionJsonSchema(): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(ExtractionResult, { io: 'input', target: 'draft-7' });
  return schema;
}

export const RECONCILE_SYSTEM_PROMPT = `You keep an AI agent's long-term memory of one user consistent.
Each new statement comes with existing memories that may be about the same thing (the most similar ones, and those about
the same subject and attribute, in other words too). Decide one action per new statement:
- ADD: new information; no candidate says the same thing or is replaced by it.
- UPDATE: it replaces a candidate: same subject and attribute, the value changed (a new preference, plan, decision, status or fact).
- INVALIDATE: it says a candidate no longer holds, without giving a new value ("we no longer use Redis").
- CONFIRM: a candidate already says the same thing, in any wording.
- CHALLENGE: it contradicts a candidate and it is unclear which one is right; both are kept.
- NOOP: it carries nothing worth keeping.
Dates tell which statement is newer; memloom orders the versions by them.
Answer with one JSON object only: {"decisions":[{"unit":<statement number>,"action":"ADD|UPDATE|INVALIDATE|CONFIRM|CHALLENGE|NOOP","target":<memory number or null>}]},
one decision per new statement; target is one of that statement's candidates for UPDATE, INVALIDATE, CONFIRM and CHALLENGE, else null.`;

/** `#id (date, kind) content` per existing memory, then `[unit] (date, kind) content — candidates: #a, #b` per new statement. */
export function buildReconcileMessages(input: ReconcileInput): PromptMessage[] {
  const line = (s: string) => s.replace(/\s+/g, ' ').trim();
  const memories = input.memories.map((m) => `#${m.id} (${m.date}, ${m.kind}) ${line(m.content)}`).join('\n');
  const units = input.units
    .map((u) => `[${u.unit}] (${u.date}, ${u.kind}) ${line(u.content)} — candidates: ${u.candidates.map((c) => `#${c}`).join(', ')}`)
    .join('\n');
  return [
    { role: 'system', content: RECONCILE_SYSTEM_PROMPT },
    { role: 'user', content: `Existing memories:\n${memories}\n\nNew statements:\n${units}\n\nDecide each new statement as JSON.` },
  ];
}

/** Output cap of a reconcile request: a decision is ~20 tokens; shared by the provider and the gate's estimate. */
export function reconcileMaxTokens(units: number): number {
  return Math.min(2000, 64 + 24 * units);
}

export function reconcileJsonSchema(): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(ReconcileAnswer, { io: 'input', target: 'draft-7' });
  return schema;
}
