import { describe, expect, it } from 'vitest';
import type { ExtractMessage } from '../types.js';
import { HeuristicLlm } from './index.js';
import { attachmentCaptions } from './turn-units.js';

const AT = '2023-05-08T13:56:00.000Z';
const llm = new HeuristicLlm();

function msg(index: number, content: string, speaker?: string, role = 'user'): ExtractMessage {
  return { index, type: 'message', role, speaker, content, occurredAt: AT };
}

async function contents(messages: ExtractMessage[]): Promise<Array<{ content: string; sources: number[] }>> {
  const { memories } = (await llm.extract({ messages, knownEntities: [] })).result;
  return memories.map(({ content, sources }) => ({ content, sources }));
}

describe('units of what a turn says beside its sentences', () => {
  it("keeps an attached photo's caption as a unit of its own, never inside a sentence", async () => {
    const got = await contents([msg(0, 'The kids loved it! [shares a photo: a photo of a cup with a dog face on it]', 'Melanie')]);
    expect(got).toContainEqual({ content: 'Melanie shared a photo of a cup with a dog face on it.', sources: [0] });
    expect(got.every((m) => !m.content.includes('['))).toBe(true);
    const plain = await contents([msg(0, 'Look what I found [image: receipt from the hardware store]')]);
    expect(plain).toContainEqual({ content: 'The user shared a photo: receipt from the hardware store.', sources: [0] });
  });

  it('keeps a reply the sentence rules drop with the question it answers, from both turns', async () => {
    const asked = msg(0, 'I missed it! Who performed at the concert?', 'Caroline');
    const got = await contents([asked, msg(1, 'It was Matt Patterson, he is so talented!', 'Melanie')]);
    expect(got).toContainEqual({
      content: 'Melanie, asked by Caroline "Who performed at the concert?": It was Matt Patterson, he is so talented.',
      sources: [0, 1],
    });
    // A verbless answer too: the question says what "Pepperoni" is.
    const pizza = await contents([msg(0, 'Which pizza do you love the most?', 'John'), msg(1, 'Pepperoni of course! Spicy salami and cheese.', 'James')]);
    expect(pizza).toEqual([
      { content: 'James, asked by John "Which pizza do you love the most?": Pepperoni of course. Spicy salami and cheese.', sources: [0, 1] },
    ]);
  });

  it('makes no reply unit without a question before, for a turn that only asks or requests, or beside a unit of its own', async () => {
    // Without its question, "it" refers to nothing: the filler the sentence rules keep out.
    expect(await contents([msg(0, 'It was Matt Patterson, he is so talented!', 'Melanie')])).toEqual([]);
    expect(await contents([msg(0, 'Anything else I can do?', undefined, 'assistant'), msg(1, 'can you set a reminder two days before')])).toEqual([]);
    // The statement beside a request is kept, the request is not (classify.ts withoutRequests).
    const beside = await contents([msg(0, "What's coming up?", undefined, 'assistant'), msg(1, 'first week of spring semester, help me set up my calendar')]);
    expect(beside.map((m) => m.content).join(' ')).not.toMatch(/help/);
    expect(await contents([msg(0, 'Nice! Who else came along?', 'Caroline'), msg(1, 'Thanks so much! What about you?', 'Melanie')])).toEqual([]);
    const own = await contents([msg(0, 'What did you do this weekend?', 'Caroline'), msg(1, 'I went camping with my kids yesterday.', 'Melanie')]);
    expect(own).toEqual([{ content: "Melanie went camping with Melanie's kids yesterday.", sources: [1] }]);
  });

  it('takes the caption out of the text and keeps the text as it was otherwise', () => {
    expect(attachmentCaptions('Check this out! [shares a photo: a sunset over a lake] Pretty, right?')).toEqual({
      text: 'Check this out! Pretty, right?',
      captions: ['a sunset over a lake'],
    });
    expect(attachmentCaptions('see [1] and [note: not an attachment]')).toEqual({ text: 'see [1] and [note: not an attachment]', captions: [] });
  });
});
