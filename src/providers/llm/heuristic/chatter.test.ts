import { describe, expect, it } from 'vitest';
import { assistantStatement, isAssistantAcknowledgement, isChitChat } from './chatter.js';

describe('what a conversation says that is no memory', () => {
  it.each([
    'Good morning!',
    'morning all',
    'The weather is awful today, raining all morning',
    'I have a call in five minutes',
    'thanks, that helped',
    'Have a great weekend!',
    'brb',
  ])('small talk: %s', (s) => expect(isChitChat(s)).toBe(true));

  it.each([
    'We moved the desktop app to SQLite.',
    'It rained so hard in March that the office flooded and we moved floors.',
    'Thanks to the new cache, p95 fell to 40 ms.',
  ])('not small talk: %s', (s) => expect(isChitChat(s)).toBe(false));

  it("keeps what an assistant confirms about the user's world, in the user's terms", () => {
    expect(assistantStatement('Noted — staging now deploys to Fly.io instead of Heroku.')).toBe('Staging now deploys to Fly.io instead of Heroku.');
    expect(assistantStatement('Got it: you drive an Outback now.')).toBe('The user drives an Outback now.');
    expect(assistantStatement("Understood, you're at Kestrel Labs now.")).toBe('The user is at Kestrel Labs now.');
  });

  it('drops what an assistant says of itself, its advice and its explanations', () => {
    expect(assistantStatement("Got it, I'll use Neovim-friendly examples.")).toBeNull();
    expect(assistantStatement('Sure, you could add a fuzzy match on the title.')).toBeNull();
    expect(assistantStatement('Flex-basis sets the starting size along the main axis.')).toBeNull();
    expect(assistantStatement('Sure.')).toBeNull();
  });

  it('tells a stored acknowledgement from a fact the assistant confirmed', () => {
    expect(isAssistantAcknowledgement('The assistant got it, the assistant will use Neovim-friendly examples.')).toBe(true);
    expect(isAssistantAcknowledgement("Got it, I'll use Neovim-friendly examples.")).toBe(true);
    expect(isAssistantAcknowledgement('I will keep schema changes small.')).toBe(true);
    expect(isAssistantAcknowledgement('Staging now deploys to Fly.io instead of Heroku.')).toBe(false);
    expect(isAssistantAcknowledgement('The user drives an Outback now.')).toBe(false);
  });
});
