/**
 * Entity mentions in one sentence: code-shaped things found by pattern (URLs, paths, versions,
 * identifiers), known technologies and tools, and, through compromise, people, places,
 * organizations, capitalised names and salient noun phrases.
 */
import { lexiconTag, type Term } from './analyse.js';
import { EVENT_HEADS, GENERIC_NOUNS, NOT_NAMES, ORG_HEADS, PRONOUNS, STOPWORDS, TECHNOLOGIES, TOOLS } from './lexicon.js';
import { normaliseName } from './registry.js';

export interface Mention {
  name: string;
  type: string;
  description?: string;
  /** Single common nouns: dropped later unless repeated or used by a triplet. */
  weak?: boolean;
}

const URL_RE = /\bhttps?:\/\/[^\s<>"'`)]+/g;
const PATH_RE =
  /(?:^|[\s(`'"])((?:~|\.{1,2})?\/?(?:[\w@.-]+\/)+[\w@.-]*\.[A-Za-z0-9]{1,8}|(?:~|\.{1,2})?\/(?:[\w@.-]+\/)+[\w@.-]+)(?=$|[\s)`'",;:!?]|\.(?:\s|$))/g;
const DIR_RE = /(?<=^|[\s(`'"])[\w.-]+\/(?=$|[\s)`'",;:!?])/g;
const FILE_RE = /\b[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|json|md|ya?ml|toml|py|rs|go|java|rb|sh|sql|prisma|css|html|txt|csv|env|lock|ini|cfg|conf)\b/g;
const VERSION_RE = /\bv\d+(?:\.\d+){0,3}(?:-[\w.]+)?\b|\b\d+\.\d+\.\d+(?:-[\w.]+)?\b/g;
const NAMED_VERSION_RE =
  /\b(Node(?:\.js)?|Python|Java|TypeScript|PostgreSQL|Postgres|React|Vue|Angular|Go|Rust|Ruby|PHP|Ubuntu|Debian|macOS|iOS|Android|Windows|Redis|Prisma|Next\.js|Vite|Vitest|Kotlin|Swift|Django|Rails|GPT|Zod|Express|Fastify|BullMQ)[ -]v?(\d+(?:\.\d+)*)\b/g;
const BACKTICK_RE = /`([^`\n]{1,80})`/g;
const SNAKE_RE = /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g;
const CAMEL_RE = /\b[a-z]+(?:[A-Z][a-z0-9]*)+\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*){1,}\b/g;
const DOTTED_RE = /\b[a-zA-Z_$][\w$]*(?:\.[a-zA-Z_$][\w$]*)+(?:\(\))?/g;
const CAPS_RUN_RE = /\b\p{Lu}[\p{L}\p{N}+&'-]*(?:\s+(?:of\s+|de\s+)?\p{Lu}[\p{L}\p{N}+&'-]*)*/gu;
/** Lower-case words that are also ordinary English; they count as technology only when capitalised. */
const HOMONYMS = new Set(
  'go rest express make swift spring rust solid jest koa apache linear excel slack notion helm caddy node java ruby bun deno flask rails react vue mocha babel tailwind bootstrap lambda gemini claude mistral llama http https json yaml toml wasm tsx pino zod vite jax linux windows s3 ec2 ios android c# c++ make'.split(
    ' ',
  ),
);
const LEXICON_RE = new RegExp(
  `(?<![\\w.-])(${[...TECHNOLOGIES, ...TOOLS]
    .sort((a, b) => b.length - a.length)
    .map(escapeRe)
    .join('|')})(?![\\w-]|\\.\\w)`,
  'gi',
);
/** Capitalised words that open a sentence-like run without being part of a name. */
const LEADING_CAPS = new Set([
  'the',
  'a',
  'an',
  'this',
  'that',
  'my',
  'our',
  'your',
  'his',
  'her',
  'their',
  'now',
  'last',
  'next',
  'then',
  'when',
  'if',
  'just',
  'here',
  'there',
  'what',
  'how',
  'why',
  'where',
  'who',
  'since',
  'after',
  'before',
  'every',
  'each',
  'some',
  'any',
  'dear',
  'happy',
]);
const TRAILING_TIME = /\s+(?:yesterday|today|tomorrow|tonight|now|last \w+|next \w+|this \w+|ago|recently|lately|soon)$/i;

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Code-shaped mentions; language independent, so Chinese sentences use it too. */
export function codeMentions(text: string): Mention[] {
  const out: Mention[] = [];
  let rest = text;
  const take = (re: RegExp, f: (m: string[], offset: number) => Mention | null): void => {
    rest = rest.replace(re, (...args: unknown[]) => {
      const m = args.slice(0, -2) as string[];
      const mention = f(m, args[args.length - 2] as number);
      if (mention) out.push(mention);
      return ' '.repeat(String(args[0]).length);
    });
  };
  take(URL_RE, (m) => ({ name: normaliseName(m[0] ?? '', { code: true }), type: 'other', description: 'URL' }));
  take(BACKTICK_RE, (m) => backtickMention(m[1] ?? ''));
  take(PATH_RE, (m) => ({ name: normaliseName(m[1] ?? '', { code: true }), type: 'file', description: 'file path' }));
  take(FILE_RE, (m) => ({ name: m[0] ?? '', type: 'file', description: 'file' }));
  take(DIR_RE, (m) => ({ name: m[0] ?? '', type: 'file', description: 'directory' }));
  take(NAMED_VERSION_RE, (m) => {
    out.push(techMention(m[1] ?? ''));
    return { name: `${m[1]} ${m[2]}`, type: 'version', description: 'version' };
  });
  take(VERSION_RE, (m) => ({ name: m[0] ?? '', type: 'version', description: 'version' }));
  take(LEXICON_RE, (m, at) => {
    const word = m[0] ?? '';
    // "go", "rest", "express" are English first: only a capitalised mid-sentence "Rust" is the language.
    if (HOMONYMS.has(word.toLowerCase()) && (word === word.toLowerCase() || /^\W*$/.test(text.slice(0, at)) || /[.!?:]\s*$/.test(text.slice(0, at))))
      return null;
    return techMention(word);
  });
  take(SNAKE_RE, (m) => ({ name: m[0] ?? '', type: 'other', description: 'code identifier' }));
  take(DOTTED_RE, (m) => {
    const word = m[0] ?? '';
    return /^(?:e\.g|i\.e|a\.m|p\.m|u\.s)$/i.test(word) ? null : { name: word, type: 'other', description: 'code identifier' };
  });
  take(CAMEL_RE, (m) => {
    const word = m[0] ?? '';
    // camelCase is code; PascalCase may just be a brand ("YouTube"), so it gets no description.
    return /^[a-z]/.test(word) ? { name: word, type: 'other', description: 'code identifier' } : { name: word, type: 'other' };
  });
  return out.filter((m) => m.name.length > 1);
}

function techMention(name: string): Mention {
  const lower = name.toLowerCase();
  return { name, type: TOOLS.has(lower) ? 'tool' : 'technology' };
}

function backtickMention(inner: string): Mention | null {
  const s = inner.trim();
  // Inline JSON, shapes and expressions (`{ id, name }`, `a | b`) are code, not names.
  if (!s || /[{}"|<>=;]/.test(s)) return null;
  if (/^[\w@.~-]*\/[\w@./-]*$/.test(s) || /^[\w-]+\.[a-z]{1,5}$/i.test(s)) return { name: s, type: 'file', description: 'file path' };
  const first = s.split(/\s+/)[0]?.toLowerCase() ?? '';
  if (/\s/.test(s))
    return TOOLS.has(first) || TECHNOLOGIES.has(first) ? techMention(s.split(/\s+/)[0] ?? s) : { name: s, type: 'other', description: 'command' };
  if (TECHNOLOGIES.has(s.toLowerCase()) || TOOLS.has(s.toLowerCase())) return techMention(s);
  return { name: s, type: 'other', description: 'code identifier' };
}

/** Code-shaped spans blanked out, so the NLP pass does not read `src/a.ts` as words. */
export function maskCode(text: string): string {
  return [URL_RE, BACKTICK_RE, PATH_RE, FILE_RE, DIR_RE, VERSION_RE, SNAKE_RE, DOTTED_RE].reduce((s, re) => s.replace(re, (m) => ' '.repeat(m.length)), text);
}

/** People, places, organizations, capitalised names and salient noun phrases from compromise's tags. */
export function languageMentions(terms: readonly Term[], text: string): Mention[] {
  const out: Mention[] = [];
  const seen = new Set<string>();
  const push = (raw: string, type: string, weak = false): void => {
    const name = normaliseName(raw.replace(TRAILING_TIME, ''), { determiners: type === 'concept' || type === 'event' });
    const key = name.toLowerCase();
    if (!name || seen.has(key) || /[`/\\_{}=<>@#$%^*|~]/.test(name) || name.split(' ').length > 4) return;
    if (PRONOUNS.has(key) || STOPWORDS.has(key) || NOT_NAMES.has(key)) return;
    if (name.length <= 2 && !/^\p{Lu}{2}$/u.test(name)) return; // "St" of "St. Mary's"; "AI" and "UK" stay
    seen.add(key);
    out.push(weak ? { name, type, weak } : { name, type });
  };
  for (const [tag, type] of NAMED_TAGS) {
    for (const run of runs(terms, (t) => t.tags.has(tag))) {
      const phrase = joinTerms(run);
      if (tag === 'Organization' && phrase === phrase.toLowerCase()) continue; // "kids & work" is not a company
      // compromise calls any capitalised word before a verb a person ("Lesson learned"); a known
      // first or last name, an honorific or two capitalised words make it believable.
      const named = run.length > 1 || run.some((t) => t.tags.has('FirstName') || t.tags.has('Honorific') || (t.tags.has('LastName') && t !== terms[0]));
      const lower = phrase.toLowerCase();
      push(phrase, TECHNOLOGIES.has(lower) ? 'technology' : tag === 'Person' && !named ? 'other' : type);
    }
  }
  for (const m of text.matchAll(CAPS_RUN_RE)) {
    // Runs like "Hey Caroline", "Now I'm" or "Last Friday" shed their non-name words first.
    const kept = m[0].replace(/\s+of$/, '').split(/\s+/);
    while (kept.length && (NOT_NAMES.has((kept[0] ?? '').toLowerCase()) || LEADING_CAPS.has((kept[0] ?? '').toLowerCase()))) kept.shift();
    while (kept.length && /^I(?:'\w+)?$/.test(kept[kept.length - 1] ?? '')) kept.pop();
    if (kept.length === 0 || kept.some((w) => /^I(?:'\w+)?$/.test(w)) || kept.every((w) => NOT_NAMES.has(w.toLowerCase()))) continue;
    const phrase = kept.join(' ');
    const atStart = m.index === 0 || /[.!?:]\s*$/.test(text.slice(0, m.index));
    const words = phrase.split(/\s+/);
    // "Painting's a fun way": capitalised only by position. Acronyms ("API") are names anywhere.
    if (atStart && words.length === 1 && !/^\p{Lu}[\p{Lu}\p{N}+&]+$/u.test(phrase)) continue;
    if (words.length === 1 && (phrase.length < 2 || phrase === 'I' || /^I'/.test(phrase))) continue;
    const head = (words[words.length - 1] ?? '').toLowerCase();
    push(phrase, ORG_HEADS.has(head) ? 'organization' : TECHNOLOGIES.has(phrase.toLowerCase()) ? 'technology' : 'other');
  }
  for (const run of nounPhrases(terms)) {
    const words = run.map((t) => t.text.replace(/'s$/i, '')).filter(Boolean);
    const head = (run[run.length - 1]?.word ?? '').replace(/'s$/, '');
    if (words.length === 0 || GENERIC_NOUNS.has(head) || STOPWORDS.has(head) || PRONOUNS.has(head)) continue;
    // compromise sometimes chunks a lone verb or adjective as a noun ("took", "important").
    const verbLike =
      /^(?:[a-z]+ly|[a-z]+ing|[a-z]+ed)$/.test(head) ||
      run[0]?.tags.has('PastTense') ||
      run[0]?.tags.has('Adjective') ||
      /^(?:PastTense|Participle)$/.test(lexiconTag(head) ?? '');
    if (words.length === 1 && verbLike) continue;
    if (run.some((t) => t.tags.has('Infinitive') || t.tags.has('QuestionWord'))) continue;
    push(words.slice(-4).join(' '), EVENT_HEADS.has(head) ? 'event' : 'concept', words.length === 1);
  }
  return out;
}

const NAMED_TAGS: Array<[string, string]> = [
  ['Person', 'person'],
  ['Place', 'place'],
  ['Organization', 'organization'],
  ['ProperNoun', 'other'],
];
const NP_BREAK = new Set(['Pronoun', 'Conjunction', 'Preposition', 'Date', 'QuestionWord', 'Value', 'Adverb', 'Verb', 'Possessive']);
const NP_SKIP_LEAD = new Set(['Determiner', 'Adjective', 'Possessive', 'Expression', 'Interjection']);

/** Maximal runs of terms that satisfy `test`, broken at punctuation and possessives. */
function runs(terms: readonly Term[], test: (t: Term) => boolean): Term[][] {
  const out: Term[][] = [];
  let cur: Term[] = [];
  for (const t of terms) {
    if (test(t) && t.text) {
      cur.push(t);
      if (/[^\s]/.test(t.post) || t.tags.has('Possessive')) {
        out.push(cur);
        cur = [];
      }
    } else if (cur.length) {
      out.push(cur);
      cur = [];
    }
  }
  if (cur.length) out.push(cur);
  return out;
}

/** Noun chunks without their determiners and leading adjectives-only words, ending on a noun. */
function nounPhrases(terms: readonly Term[]): Term[][] {
  const chunks = runs(terms, (t) => t.chunk === 'Noun' && ![...t.tags].some((tag) => NP_BREAK.has(tag)));
  const out: Term[][] = [];
  for (const c of chunks) {
    let start = 0;
    const skippable = (t: Term): boolean => ([...t.tags].some((tag) => NP_SKIP_LEAD.has(tag)) && !t.tags.has('Noun')) || NOT_NAMES.has(t.word);
    while (start < c.length && skippable(c[start] as Term)) start++;
    let end = c.length;
    while (end > start && !(c[end - 1] as Term).tags.has('Noun')) end--;
    if (end > start) out.push(c.slice(start, end));
  }
  return out;
}

function joinTerms(run: readonly Term[]): string {
  return run.map((t, i) => t.text + (i < run.length - 1 ? ' ' : '')).join('');
}
