/**
 * Turns a speaker's sentence into a memory's wording: chat interjections and vocatives are
 * trimmed, and first person becomes third person ("I went" -> "Caroline went", "my" -> "Caroline's").
 * "we"/"our" stay: who "we" are is not knowable from one sentence.
 */
import type { Analysis } from './analyse.js';
import { SUBJECT_ADVERBS } from './lexicon.js';

/** How to name the speaker at the start of a sentence and inside it ("The user" / "the user"). */
export interface SelfLabel {
  start: string;
  mid: string;
}

const ROLE_ZH: Record<string, string> = { user: '用户', assistant: '助手', system: '系统' };

export function selfLabel(speaker: string | undefined, role: string | undefined, chinese = false): SelfLabel {
  if (speaker?.trim()) return { start: speaker.trim(), mid: speaker.trim() };
  const r = (role?.trim() || 'user').toLowerCase();
  if (chinese) return { start: ROLE_ZH[r] ?? r, mid: ROLE_ZH[r] ?? r };
  return { start: `The ${r}`, mid: `the ${r}` };
}

// biome-ignore lint/suspicious/noMisleadingCharacterClass: each code point is removed on its own, joiners and modifiers included
const EMOJI_RE = /[\p{Extended_Pictographic}\u{FE0F}\u{200D}\u{1F3FB}-\u{1F3FF}]/gu;
/** Interjections that are dropped only when punctuation follows ("Great, I ..." but not "Great things ..."). */
const LEAD_PUNCT =
  /^(?:yeah+|yes|yep|yup|no|nope|nah|cool|great|awesome|nice|sure|right|true|totally|absolutely|definitely|exactly|thanks|thank you|thx|well|man|dude|okay|ok|haha+|lol|wow+|aw+|oh+|ah+|hmm+|um+|uh+|hey+|hi|hello|omg|gosh|whoa|indeed|agreed|same|honestly|actually|anyway|anyways|btw|by the way|also|plus|so|phew|ugh|yay|woohoo|yikes|oof|whew|welp|good news|bad news|big news|great news)\s*[,!.:;—–-]+\s*/i;
/** Fillers dropped before any word ("So I'm ...", "Oh I went ..."). */
const LEAD_SPACE =
  /^(?:oh+|ah+|aw+|um+|uh+|hmm+|wow+|haha+|lol|omg|btw|fyi|so|and|but|plus|also|anyway|anyways|actually|honestly|by the way|you know,?|phew|ugh|yay|woohoo|yikes|oof|whew|welp)\s+/i;
const GREETING = /^(?:hey|hi|hello|dear|thanks|thank you|congrats|congratulations|wow|aw+|oh|yeah|yes|no|sorry)\s+(\p{Lu}[\p{L}'-]+)\b[\s,!.]*/iu;

/**
 * "I finished a pottery project - want to see a pic?": a statement with a short question tacked
 * on. The tag is dropped; a real question ("Have you been to Paris, Mel?") is left alone.
 */
export function dropTagQuestion(text: string): string {
  if (!/\?\s*$/.test(text)) return text;
  const m = /^(.*\S)\s*(?:[,;]|\s[-–—]+)\s*([^,;–—]*\?)\s*$/u.exec(text);
  if (!m) return text;
  const main = m[1] ?? '';
  if (/^(?:do|does|did|have|has|had|are|is|was|were|can|could|would|will|should|what|where|when|why|how|who|which|any|anything|ever|wanna)\b/i.test(main))
    return text;
  return `${main.replace(/[\s,;:–—-]+$/, '')}.`;
}

/** A label before what is said: "Update: …", "Big news: …", "For context — …". */
const LEAD_LABEL =
  /^(?:(?:quick|small|big|little|some|one more|another|a quick|an)\s+)?(?:update|news|fyi|heads[\s-]up|context|for context|btw|note|reminder|ps|p\.s\.|side note|fun fact|correction|follow[\s-]up|status)(?:\s+(?:on|to|for|about|from)\s+[^:—–]{1,40})?\s*[:—–-]+\s*/i;

/** "Just remember that X" and "Keep in mind that X" are advice whose content is X. */
const ADVICE_LEAD = /^(?:just |always |but |and )?(?:remember|keep in mind|note|bear in mind|don't forget|never forget)(?: that|,)\s+/i;

/** Trims emoji, leading interjections and vocatives naming a conversation participant. */
export function cleanSentence(text: string, names: readonly string[]): string {
  let s = text
    .replace(EMOJI_RE, '')
    .replace(/\*\*|__/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  for (let i = 0; i < 4; i++) {
    const before = s;
    s = s.replace(LEAD_LABEL, '').replace(LEAD_PUNCT, '').replace(LEAD_SPACE, '');
    const voc = /^([A-Z][\p{L}'-]+)\s*[,!:]\s*/u.exec(s) ?? GREETING.exec(s);
    if (voc && isParticipant(voc[1] ?? '', names)) s = s.slice(voc[0].length);
    s = s.replace(ADVICE_LEAD, '');
    if (s === before) break;
  }
  // Trailing vocative: "... last week, Caroline!"
  s = s.replace(/,\s*([A-Z][\p{L}'-]+)\s*([.!?]*)$/u, (whole, name: string, end: string) => (isParticipant(name, names) ? end || '.' : whole));
  s = s
    .replace(/!+$/, '.')
    .replace(/\.{2,}$/, '.')
    // A space before punctuation goes; not before a word that starts with a dot (".zshrc", ".env").
    .replace(/\s+([.!?,])(?![\p{L}\p{N}])/gu, '$1')
    .trim();
  return s ? (s[0] as string).toUpperCase() + s.slice(1) : s;
}

/** "Mel" addresses "Melanie": a prefix of at least three letters counts. */
function isParticipant(word: string, names: readonly string[]): boolean {
  const w = word.toLowerCase();
  return w.length >= 3 && names.some((n) => n.toLowerCase().startsWith(w));
}

const IRREGULAR: Record<string, string> = {
  have: 'has',
  do: 'does',
  go: 'goes',
  be: 'is',
  am: 'is',
  "don't": "doesn't",
  "haven't": "hasn't",
  "ain't": "isn't",
  dont: "doesn't",
  havent: "hasn't",
  "aren't": "isn't",
};
const UNCHANGED = new Set([
  'can',
  'could',
  'will',
  'would',
  'should',
  'might',
  'must',
  'may',
  'shall',
  "can't",
  "couldn't",
  "won't",
  "wouldn't",
  "shouldn't",
  "didn't",
  "wasn't",
  'had',
  'did',
  'was',
  'cant',
  'didnt',
  'wont',
  'gotta',
  'gonna',
  'wanna',
]);

/** "I put it on yesterday": these verbs look the same in the past, so a past context leaves them. */
const SAME_IN_PAST = new Set(['put', 'cut', 'read', 'hit', 'set', 'let', 'quit', 'shut', 'spread', 'hurt', 'cost', 'bet', 'split', 'upset']);
const PAST_CONTEXT_RE = /\b(?:yesterday|ago|last|when i was|back then|earlier|once)\b/i;

export function thirdPersonVerb(word: string): string {
  const w = word.toLowerCase();
  const irregular = IRREGULAR[w];
  if (irregular) return irregular;
  if (/(?:s|sh|ch|x|z|o)$/.test(w)) return `${word}es`;
  if (/[^aeiou]y$/.test(w)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}

/** Rewrites first person into third person; `a` supplies the verb tags that decide "I love" -> "loves". */
export function toThirdPerson(text: string, a: Analysis, self: SelfLabel): string {
  const base = new Set(
    a.terms
      .filter((t) => t.tags.has('Verb') && (t.tags.has('Infinitive') || (t.tags.has('PresentTense') && !t.tags.has('Gerund') && !t.tags.has('PastTense'))))
      .map((t) => t.word),
  );
  const past = PAST_CONTEXT_RE.test(text);
  const conj = (verb: string): string => {
    const w = verb.toLowerCase();
    if (UNCHANGED.has(w) || (past && SAME_IN_PAST.has(w))) return verb;
    if (IRREGULAR[w]) return IRREGULAR[w] as string;
    return base.has(w) ? thirdPersonVerb(verb) : verb;
  };

  let s = prefixDroppedSubject(text, a);
  const S = '\u0000'; // placeholder: capitalisation is settled once all replacements are done
  s = s
    .replace(/\bI'm\b|\bI am\b/gi, `${S} is`)
    .replace(/\bI've\b/gi, `${S} has`)
    .replace(/\bI'll\b/gi, `${S} will`)
    .replace(/\bI'd(?=\s+(been|had|done|gone|seen|never|already|just|ever|always)\b)/gi, `${S} had`)
    .replace(/\bI'd\b/gi, `${S} would`)
    .replace(/\bI was\b/gi, `${S} was`)
    .replace(new RegExp(`\\bI((?:\\s+(?:${SUBJECT_ADVERBS}))*)\\s+([a-z]+(?:n't)?)\\b`, 'gi'), (_m, adv: string, verb: string) => `${S}${adv} ${conj(verb)}`)
    .replace(/\bI\b|(?<=\s)i(?=\s)/g, S)
    // Not within a hyphenated name ("oh-my-zsh").
    .replace(/(?<!-)\bmy\b(?!-)/gi, POSSESSIVE)
    .replace(/(?<!-)\bmine\b(?!-)/gi, OWNED)
    .replace(/\bmyself\b/gi, 'themself')
    .replace(/(?<!-)\bme\b(?![-'])/gi, OBJECT);
  s = s.replace(/我的/g, `${S}的`).replace(/我(?!们)/g, S);
  // A role label ("the user", not a name) named once reads as a pronoun after that, as a person
  // would write it: "The user uses Neovim as their editor, please give them vim keybindings".
  // A name, or a sentence that has not named the speaker yet, keeps the label.
  const role = /^the\s/i.test(self.mid);
  const label = (offset: number) => (offset === 0 ? self.start : self.mid);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL and control characters are what this expression is for
  return s.replace(/[\u0000-\u0003]/g, (c: string, offset: number, whole: string) => {
    if (c === S) return label(offset);
    const named = role && whole.slice(0, offset).includes(S);
    if (c === OBJECT) return named ? 'them' : label(offset);
    if (c === OWNED) return named ? 'theirs' : `${label(offset)}'s`;
    return named ? 'their' : `${label(offset)}'s`;
  });
}

// Placeholders of toThirdPerson for "my", "mine" and "me" (S, NUL, is the subject "I").
const POSSESSIVE = '\u0001';
const OWNED = '\u0002';
const OBJECT = '\u0003';

/** "Lost my job" -> "I lost my job"; "Researching agencies" -> "I am researching agencies". */
function prefixDroppedSubject(text: string, a: Analysis): string {
  if (!a.droppedSubject) return text;
  const lowerFirst = text.replace(/^(\W*)(\p{Lu})(?=\p{Ll})/u, (_m, p: string, c: string) => p + c.toLowerCase());
  switch (a.droppedSubject) {
    case 'gerund':
    case 'aux':
      return `I am ${lowerFirst}`;
    case 'perfect':
      return `I have ${lowerFirst}`;
    default:
      return `I ${lowerFirst}`;
  }
}
