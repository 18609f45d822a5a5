import { describe, expect, it } from 'vitest';
import type { EventToExtract } from '../../src/db/sql/extract-events.js';
import type { ExtractionResult } from '../../src/providers/llm/types.js';
import { prepare } from './prepare.js';

const AT = new Date('2026-11-05T10:00:00Z');
const events: EventToExtract[] = [0, 1, 2].map((i) => ({
  id: `00000000-0000-0000-0000-00000000000${i}`,
  type: 'message',
  role: 'user',
  content: `message ${i}`,
  occurred_at: AT,
  dataset: 'default',
  user_id: 'dana',
  agent_id: null,
  session_id: 's1',
  importance: null,
  metadata: {},
}));
const entity = (name: string, type: string, sources = [0]) => ({ name, type, description: '', sources });
const memory = (content: string, subject: string | null, entities: string[], sources = [0]) => ({
  kind: 'fact' as const,
  content,
  subject,
  entities,
  importance: 5,
  confidence: 0.8,
  event_time: null,
  sources,
});

/** A model's answer (the gate applies to it as to the offline extractor's). */
const answer = (r: Partial<ExtractionResult>): ExtractionResult => ({ entities: [], memories: [], triplets: [], ...r }) as ExtractionResult;

describe('prepare: the entity gate', () => {
  it('drops the user, the assistant and code fragments as entities, with the triplets that use them', () => {
    const p = prepare(
      answer({
        entities: [entity('user', 'person'), entity('assistant', 'person'), entity('retryWithBackoff(fn', 'other'), entity('Postgres', 'technology')],
        memories: [memory('Uses Postgres.', 'user', ['user', 'Postgres', 'retryWithBackoff(fn'])],
        triplets: [
          { source: 'user', relation: 'uses', target: 'Postgres', description: '', sources: [0] },
          { source: 'retryWithBackoff(fn', relation: 'calls', target: 'Postgres', description: '', sources: [0] },
        ],
      }),
      events,
    );
    expect(p.entities.map((e) => e.name)).toEqual(['Postgres']);
    expect(p.triplets).toEqual([]);
    expect(p.memories[0]?.entities).toEqual(['Postgres']);
    expect(p.memories[0]?.subject).toBe('user'); // about the speaker: written without a subject entity
  });
});

describe('prepare: persons', () => {
  it('merges a full name, first name and surname into one person', () => {
    const p = prepare(
      answer({
        entities: [entity('Priya Raman', 'other', [0]), entity('Priya', 'concept', [1]), entity('Raman', 'concept', [2]), entity('tech lead', 'concept', [0])],
        memories: [memory('Priya agreed to the plan.', 'Priya', ['Priya'], [1]), memory('Raman wants the upgrade.', 'Raman', ['Raman'], [2])],
        triplets: [{ source: 'Priya Raman', relation: 'is', target: 'tech lead', description: '', sources: [0] }],
      }),
      events,
    );
    const people = p.entities.filter((e) => e.name.startsWith('Priya') || e.name === 'Raman');
    expect(people.map((e) => [e.name, e.type, e.eventIds.length])).toEqual([['Priya Raman', 'person', 3]]);
    expect(p.memories.map((m) => [m.subject, m.entities])).toEqual([
      ['Priya Raman', ['Priya Raman']],
      ['Priya Raman', ['Priya Raman']],
    ]);
  });

  it('keeps two people who share a first name apart, and the bare first name joins neither', () => {
    const p = prepare(answer({ entities: [entity('Priya Raman', 'person'), entity('Priya Shah', 'person'), entity('Priya', 'person', [1])] }), events);
    expect(p.entities.map((e) => e.name).sort()).toEqual(['Priya', 'Priya Raman', 'Priya Shah']);
  });

  it('makes a role holder a person', () => {
    const p = prepare(
      answer({
        entities: [entity('Sam Lee', 'other'), entity('product manager', 'concept')],
        triplets: [{ source: 'Sam Lee', relation: 'is', target: 'product manager', description: '', sources: [0] }],
      }),
      events,
    );
    expect(p.entities.find((e) => e.name === 'Sam Lee')?.type).toBe('person');
  });
});
