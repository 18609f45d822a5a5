/**
 * What may be an entity of the graph, and which mentions name the same person. Pure rules, applied
 * to every extractor's entities (workers/extract/prepare.ts) and at write time
 * (src/db/sql/entities.ts), so a model's answer passes the same gate as the offline extractor's.
 */

/**
 * Words for the parties of the conversation: the user and the assistant are who the memories are
 * for and from, not things in them, so they are never entities.
 */
export const SPEAKER_WORDS: ReadonlySet<string> = new Set([
  'user',
  'the user',
  'users',
  'assistant',
  'the assistant',
  'ai',
  'the ai',
  'bot',
  'chatbot',
  'agent',
  'the agent',
  'human',
  'system',
  'i',
  'me',
  'my',
  'mine',
  'myself',
  'you',
  'your',
  'yours',
  'yourself',
  'we',
  'us',
  'our',
  'ours',
  'ourselves',
]);

export function isSpeakerWord(normalized: string): boolean {
  return SPEAKER_WORDS.has(normalized.trim().toLowerCase());
}

/** Brackets, operators and quotes: a name holding one is a code fragment ("retryWithBackoff(fn"), not an entity. */
const CODE_CHARS = /[()[\]{}<>=;|`"\\^~*]|->|::|&&/;
/** Letters, digits and the few marks names use (C++, C#, Node.js, O'Brien, src/a.ts). */
const NAME_MARK = /[\p{L}\p{N}]/u;

/**
 * Whether `name` can name an entity: some letter or digit, mostly letters and digits, no
 * brackets, operators or quotes, at most 8 words and 100 characters. Paths (src/db/pool.ts),
 * versions (v1.2.0), dotted names (Node.js) and C++/C# pass; "retryWithBackoff(fn", "a[i]",
 * "x => y" and "===" do not.
 */
export function isEntityName(name: string): boolean {
  const s = name.trim();
  if (s.length === 0 || s.length > 100) return false;
  if (CODE_CHARS.test(s)) return false;
  if (s.split(/\s+/).length > 8) return false;
  // C++ and C# end in marks that are part of the name.
  const chars = [...s.replace(/[+#]+$/, '')];
  const marks = chars.filter((c) => NAME_MARK.test(c)).length;
  return marks > 0 && marks / chars.filter((c) => c.trim() !== '').length >= 0.6;
}

/** Nouns of a role a person holds; "X is our tech lead" says X is a person. */
export const ROLE_NOUNS: ReadonlySet<string> = new Set(
  (
    'lead manager engineer developer designer architect cto ceo cfo coo vp founder cofounder co-founder director head owner maintainer ' +
    'boss colleague coworker co-worker teammate mentor intern contractor consultant recruiter analyst scientist researcher admin administrator ' +
    'pm po sre dev devops tester reviewer editor writer author teacher doctor nurse lawyer accountant friend partner wife husband ' +
    'sister brother mother father mom dad son daughter neighbour neighbor roommate landlord client customer contact champion sponsor ' +
    'chair president secretary officer assistant advisor adviser coach'
  ).split(' '),
);

/** Whether a role phrase ("tech lead", "our new product manager") ends in a role noun. */
export function isRolePhrase(phrase: string): boolean {
  const words = phrase.trim().toLowerCase().split(/\s+/);
  return ROLE_NOUNS.has(words[words.length - 1] ?? '');
}

/** A person's full name as written: two or three capitalised words of letters ("Priya Raman", "Mary-Jane O'Neil"). */
export function isFullName(name: string): boolean {
  return /^\p{Lu}[\p{L}'-]+(?: \p{Lu}[\p{L}'-]+){1,2}$/u.test(name.trim());
}

/** A single capitalised word that may be a first name or a surname. */
export function isNamePart(name: string): boolean {
  return /^\p{Lu}[\p{L}'-]+$/u.test(name.trim());
}

/**
 * The one full name of `fullNames` whose first or last word is `part` (case-insensitive), or
 * undefined when none or several are: "Priya" joins "Priya Raman", but with "Priya Raman" and
 * "Priya Shah" both known it names neither.
 */
export function fullNameOf(part: string, fullNames: readonly string[]): string | undefined {
  const p = part.trim().toLowerCase();
  const found = [
    ...new Set(
      fullNames.filter((f) => {
        const words = f.trim().toLowerCase().split(/\s+/);
        return words.length > 1 && (words[0] === p || words[words.length - 1] === p);
      }),
    ),
  ];
  return found.length === 1 ? found[0] : undefined;
}
