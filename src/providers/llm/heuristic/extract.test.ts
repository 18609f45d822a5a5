import { describe, expect, it } from 'vitest';
import { ExtractionResult, type ExtractInput, type ExtractMessage } from '../types.js';
import { HeuristicLlm } from './index.js';

const AT = '2023-05-08T13:56:00.000Z';
const llm = new HeuristicLlm();

function msg(index: number, content: string, speaker?: string, extra: Partial<ExtractMessage> = {}): ExtractMessage {
  return { index, type: 'message', role: 'user', speaker, content, occurredAt: AT, ...extra };
}

async function extract(messages: ExtractMessage[], knownEntities: ExtractInput['knownEntities'] = []): Promise<ExtractionResult> {
  return (await llm.extract({ messages, knownEntities })).result;
}

/** The invariants every result must keep, whatever the input. */
function expectInvariants(result: ExtractionResult, input: ExtractMessage[]): void {
  expect(ExtractionResult.parse(result)).toEqual(result);
  const indexes = new Set(input.map((m) => m.index));
  const names = new Set(result.entities.map((e) => e.name));
  expect(names.size).toBe(result.entities.length);
  expect(new Set(result.entities.map((e) => e.name.toLowerCase())).size).toBe(result.entities.length);
  for (const m of result.memories) {
    expect(m.sources.length).toBeGreaterThan(0);
    for (const s of m.sources) expect(indexes.has(s)).toBe(true);
    for (const e of m.entities) expect(names.has(e)).toBe(true);
    if (m.subject) expect(names.has(m.subject)).toBe(true);
    if (m.kind === 'insight') expect(m.content.length).toBeGreaterThanOrEqual(30);
  }
  for (const e of result.entities) for (const s of e.sources) expect(indexes.has(s)).toBe(true);
  for (const t of result.triplets) {
    expect(names.has(t.source)).toBe(true);
    expect(names.has(t.target)).toBe(true);
    expect(t.relation).toMatch(/^[\p{L}\p{N}_]+$/u);
    for (const s of t.sources) expect(indexes.has(s)).toBe(true);
  }
}

describe('HeuristicLlm', () => {
  it('is the free, offline provider', async () => {
    expect(llm.model).toBe('heuristic');
    expect(llm.paid).toBe(false);
    await expect(llm.ready()).resolves.toBeUndefined();
    await expect(new HeuristicLlm().close()).resolves.toBeUndefined();
  });

  it('rewrites first person into the speaker and dates the memory from the message time', async () => {
    const { memories } = await extract([msg(0, 'I went to a support group yesterday and my mentor came with me.', 'Caroline')]);
    expect(memories).toHaveLength(1);
    expect(memories[0]).toMatchObject({
      kind: 'episode',
      content: "Caroline went to a support group yesterday and Caroline's mentor came with Caroline.",
      subject: 'Caroline',
      event_time: '2023-05-07T00:00:00.000Z',
      time_precision: 'day',
      sources: [0],
    });
  });

  it('keeps a sentence that changes a value though it classifies as nothing else, from the user only', async () => {
    const said = 'lease renewal came in and the landlord bumped rent to $2,050 starting march, so that budget needs redoing';
    const { memories } = await extract([msg(0, said, 'Mo')]);
    expect(memories).toEqual([expect.objectContaining({ kind: 'fact', content: expect.stringContaining('$2,050'), sources: [0] })]);
    const fromAssistant = await extract([msg(0, said, undefined, { role: 'assistant' })]);
    expect(fromAssistant.memories).toEqual([]);
  });

  it('conjugates the verb after "I" and keeps "we"', async () => {
    const { memories } = await extract([msg(0, "I love hiking. I'm a nurse. I've lived in Oslo for years. We explored the fjords last summer.", 'Ingrid')]);
    const contents = memories.map((m) => m.content);
    expect(contents).toContain('Ingrid loves hiking.');
    expect(contents).toContain('Ingrid is a nurse.');
    expect(contents).toContain('Ingrid has lived in Oslo for years.');
    expect(contents).toContain('We explored the fjords last summer.');
    // Also after an adverb between "I" and the verb, "no longer" among them.
    const later = await extract([msg(0, 'I no longer use bash. I typically drink oat milk lattes.', 'Ingrid')]);
    expect(later.memories.map((m) => m.content)).toEqual(expect.arrayContaining(['Ingrid no longer uses bash.', 'Ingrid typically drinks oat milk lattes.']));
  });

  it('names the role when no speaker is known', async () => {
    const { memories } = await extract([msg(0, 'I prefer tabs over spaces in my editor.')]);
    expect(memories[0]?.content).toBe('The user prefers tabs over spaces in their editor.');
    expect(memories[0]?.subject).toBe('user');
  });

  it('reads as a person would write it: a role named once is a pronoun after that, a name stays', async () => {
    const { memories } = await extract([msg(0, 'I use Neovim as my editor, please give me vim keybindings.')]);
    expect(memories[0]?.content).toBe('The user uses Neovim as their editor, please give them vim keybindings.');
    const named = await extract([msg(0, 'I sold my bike.', 'Tomas')]);
    expect(named.memories[0]?.content).toBe("Tomas sold Tomas's bike.");
  });

  it('makes the speaker a person entity', async () => {
    const { entities } = await extract([msg(0, 'I moved to Lisbon last year.', 'Tomas')]);
    expect(entities).toContainEqual(expect.objectContaining({ name: 'Tomas', type: 'person', sources: [0] }));
  });

  it('extracts a Chinese decision with its technology entity', async () => {
    const input = [msg(0, '我们决定使用PostgreSQL作为数据库。', '李雷')];
    const result = await extract(input);
    expect(result.memories).toHaveLength(1);
    expect(result.memories[0]).toMatchObject({ kind: 'decision', sources: [0] });
    expect(result.memories[0]?.entities).toContain('PostgreSQL');
    expect(result.entities).toContainEqual(expect.objectContaining({ name: 'PostgreSQL', type: 'technology' }));
    expect(result.triplets).toContainEqual(expect.objectContaining({ source: '李雷', relation: 'decided_to_use', target: 'PostgreSQL' }));
    expectInvariants(result, input);
  });

  it('types code identifiers, paths and versions', async () => {
    const input = [msg(0, 'The retry logic lives in src/queue/runner.ts and reads config.queue.maxAttempts; we need Node 20 and bullmq v5.1.0 for it.')];
    const result = await extract(input);
    const types = Object.fromEntries(result.entities.map((e) => [e.name, e.type]));
    expect(types).toMatchObject({ 'src/queue/runner.ts': 'file', 'config.queue.maxAttempts': 'other', 'Node 20': 'version', 'v5.1.0': 'version' });
    expectInvariants(result, input);
  });

  it('points triplets from subject to object', async () => {
    const input = [msg(0, 'Alice works at Acme. Bob lives in Berlin.'), msg(1, 'We decided to use Redis for the queue.', 'Carol')];
    const result = await extract(input);
    expect(result.triplets).toContainEqual(expect.objectContaining({ source: 'Alice', relation: 'works_at', target: 'Acme', sources: [0] }));
    expect(result.triplets).toContainEqual(expect.objectContaining({ source: 'Bob', relation: 'lives_in', target: 'Berlin' }));
    expect(result.triplets).toContainEqual(expect.objectContaining({ source: 'Carol', relation: 'decided_to_use', target: 'Redis', sources: [1] }));
    expect(result.triplets.find((t) => t.source === 'Acme' || t.target === 'Alice')).toBeUndefined();
    expectInvariants(result, input);
  });

  it('turns first-person cues into triplets about the speaker', async () => {
    const result = await extract([msg(0, 'I work at Globex and I live in Springfield.', 'Homer')]);
    expect(result.triplets).toContainEqual(expect.objectContaining({ source: 'Homer', relation: 'works_at', target: 'Globex' }));
    expect(result.triplets).toContainEqual(expect.objectContaining({ source: 'Homer', relation: 'lives_in', target: 'Springfield' }));
  });

  it("reuses the tenant's entity names and merges mentions across messages", async () => {
    const input = [msg(0, 'We decided to use postgresql for search.', 'Ann'), msg(1, "Ann's team moved the search index into Postgresql last week.", 'Ben')];
    const result = await extract(input, [{ id: 7, name: 'PostgreSQL', type: 'technology' }]);
    const pg = result.entities.filter((e) => e.name.toLowerCase() === 'postgresql');
    expect(pg).toEqual([expect.objectContaining({ name: 'PostgreSQL', type: 'technology', sources: [0, 1] })]);
    expect(result.entities.filter((e) => e.name === 'Ann')).toHaveLength(1);
    expectInvariants(result, input);
  });

  it('keeps a numbered list of instructions as one procedure', async () => {
    const input = [msg(0, 'To release a version:\n1. Run `npm version minor`\n2. Push the tag with `git push --tags`\n3. Publish with `npm publish`')];
    const { memories } = await extract(input);
    expect(memories.filter((m) => m.kind === 'procedure')).toHaveLength(1);
    expect(memories[0]?.content).toContain('To release a version: 1. Run `npm version minor`; 2.');
  });

  it('skips acknowledgements and empty tool output entirely', async () => {
    const result = await extract([msg(0, 'ok thanks!', 'Ann'), msg(1, '{}', undefined, { type: 'tool_result', role: 'tool' })]);
    expect(result).toEqual({ memories: [], entities: [], triplets: [] });
  });

  it("takes a feedback event's answer lines, not the recall's question that opens it", async () => {
    const content = 'Q: staging database port\nThe staging database runs on port 5433 behind the VPN.';
    const result = await extract([msg(0, content, undefined, { type: 'feedback' })]);
    expect(result.memories.map((m) => m.content)).toEqual(['The staging database runs on port 5433 behind the VPN.']);
    // The same words in a message are kept as they are (a "Q:" line there is the user's own).
    const plain = await extract([msg(0, 'Q: staging database port is 5433')]);
    expect(plain.memories.length).toBeGreaterThan(0);
  });

  it('reads a value given up and a verbless fragment naming the new one as one change', async () => {
    const input = [msg(0, 'I no longer use bash. zsh with a small .zshrc, no oh-my-zsh'), msg(1, "We don't use Jenkins anymore. Thanks for the help!")];
    const result = await extract(input);
    expectInvariants(result, input);
    const contents = result.memories.map((m) => m.content);
    // One memory holds both values, so the change is readable where it is stored.
    expect(contents.some((c) => /no longer uses bash/.test(c) && /zsh with a small \.zshrc/.test(c))).toBe(true);
    expect(contents.some((c) => c === 'The user no longer uses bash.')).toBe(false);
    // A fragment that names no value of the same category stays apart.
    expect(contents.some((c) => /Jenkins/.test(c) && /Thanks/.test(c))).toBe(false);
  });

  it('keeps every reference valid on a realistic conversation', async () => {
    const lines: Array<[string, string]> = [
      ['Priya', 'Hey Sam! Long time no see. How was the trip?'],
      ['Sam', 'It was amazing! Last month I hiked the Kungsleden trail in Sweden with my sister. We camped by a lake every night.'],
      ['Priya', "Wow, that's so cool. I've been swamped at work - we decided to migrate the billing service to Kubernetes."],
      ['Sam', "Oof. My team uses Nomad, but I'm going to try k3s next week on my home server."],
      ['Priya', 'I prefer managed clusters, honestly. Lesson learned: self-hosting the control plane is never as cheap as it looks.'],
      ['Sam', 'Makes sense. By the way, my daughter starts school in September and I am a bit nervous.'],
      ['Priya', 'Aww, she will love it! What school?'],
      ['Sam', 'Lincoln Elementary, the one near the park. To enroll, we had to bring her birth certificate and two proofs of address.'],
      ['Priya', 'ok 👍'],
    ];
    const input = lines.map(([speaker, content], i) => msg(i * 3 + 1, content, speaker));
    const result = await extract(input);
    expectInvariants(result, input);
    expect(result.memories.length).toBeGreaterThanOrEqual(6);
    expect(result.memories.some((m) => m.sources.includes(1) || m.sources.includes(25))).toBe(false); // greeting, ack
    // The question is a source only of the unit of its answer, which quotes it (turn-units.ts).
    expect(result.memories.filter((m) => m.sources.includes(19)).map((m) => m.content)).toEqual([
      'Sam, asked by Priya "What school?": Lincoln Elementary, the one near the park. To enroll, we had to bring her birth certificate and two proofs of address.',
    ]);
    const kinds = new Set(result.memories.map((m) => m.kind));
    for (const k of ['episode', 'decision', 'plan', 'preference', 'insight'] as const) expect(kinds).toContain(k);
    expect(result.entities).toContainEqual(expect.objectContaining({ name: 'Sweden', type: 'place' }));
  });
});
