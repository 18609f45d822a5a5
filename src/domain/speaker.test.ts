import { describe, expect, it } from 'vitest';
import { speakerPrefix, withSpeaker } from './speaker.js';

describe('speakerPrefix', () => {
  it('reads a name before a colon at the start of a message', () => {
    expect(speakerPrefix('Caroline: I went to the support group yesterday')).toBe('Caroline');
    expect(speakerPrefix('  Mary-Jane Watson: hi!')).toBe('Mary-Jane Watson');
    expect(speakerPrefix("Dr. O'Neil: take two")).toBe("Dr. O'Neil");
    expect(speakerPrefix('Zoë: ça va')).toBe('Zoë');
  });

  it('leaves labels, lower-case words, long phrases and URLs alone', () => {
    for (const text of [
      'Note: buy milk',
      'TODO: fix the build',
      'Q: what is it?',
      'Re: the meeting',
      'caroline: lower case is not a name',
      'The Quick Brown Fox: four words',
      'https://example.com',
      'Caroline:no space after the colon',
      'Caroline:',
      'I said: hello',
    ]) {
      expect(speakerPrefix(text), text).toBeUndefined();
    }
  });
});

describe('withSpeaker', () => {
  it('sets the speaker of a message whose metadata names none', () => {
    expect(withSpeaker('message', 'Caroline: I went to …', { dia: 1 })).toEqual({ dia: 1, speaker: 'Caroline' });
  });

  it('keeps a speaker or name the metadata gives, and other types as sent', () => {
    expect(withSpeaker('message', 'Caroline: hi', { speaker: 'Mel' })).toEqual({ speaker: 'Mel' });
    expect(withSpeaker('message', 'Caroline: hi', { name: 'Mel' })).toEqual({ name: 'Mel' });
    expect(withSpeaker('document', 'Abstract: we show', {})).toEqual({});
  });

  it("takes no speaker from an assistant's reply or an acknowledgement label", () => {
    expect(withSpeaker('message', 'Logged: Orion Media renews May 15.', {}, 'assistant')).toEqual({});
    expect(withSpeaker('message', 'Caroline: hi', {}, 'assistant')).toEqual({});
    expect(withSpeaker('message', 'Noted: standup at 10.', {}, 'user')).toEqual({});
    expect(withSpeaker('message', 'Caroline: hi', {}, 'user')).toEqual({ speaker: 'Caroline' });
  });
});
