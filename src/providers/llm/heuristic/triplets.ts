/**
 * Relations between entities in one (already third-person) sentence. Cue patterns come first
 * ("X works at Y" -> works_at); otherwise the original sentence's terms give subject
 * -verb_lemma-> object. A triplet is kept only when both ends are entities.
 */
import type { Analysis, Term } from './analyse.js';
import { GENERIC_NOUNS, PRONOUNS, STOPWORDS } from './lexicon.js';
import { normaliseName } from './registry.js';

export interface RawTriplet {
  source: string;
  relation: string;
  target: string;
  /** Type to give the target when it is not an entity yet. */
  targetType: string;
}

export interface TripletContext {
  /** Names of the entities mentioned in the sentence, the speaker included. */
  names: readonly string[];
  /** Who "we" / first person refers to, when known. */
  speaker: string | null;
  /** The original (first-person) sentence's analysis; absent for Chinese. */
  analysis?: Analysis | undefined;
  lemma: (word: string, tags: ReadonlySet<string>) => string;
  /** How the rewritten sentence names the speaker ("the user", "用户"); they mean `speaker`. */
  selfAliases?: readonly string[];
}

interface Cue {
  re: RegExp;
  relation: (m: RegExpExecArray) => string;
  targetType: string;
}

const cue = (re: RegExp, relation: string | ((m: RegExpExecArray) => string), targetType = 'concept'): Cue => ({
  re,
  relation: typeof relation === 'string' ? () => relation : relation,
  targetType,
});

const CUES: Cue[] = [
  cue(/\s(?:currently |now |still )?(?:works|worked|work|is working) (?:at|for)\s+/gi, 'works_at', 'organization'),
  cue(/\s(?:works|worked|work|is working) as (?:an? )?/gi, 'works_as'),
  cue(/\s(?:lives|lived|live|is living|has lived) in\s+/gi, 'lives_in', 'place'),
  cue(/\s(?:is|was|comes|came) from\s+/gi, 'from', 'place'),
  cue(/\smoved to\s+/gi, 'moved_to', 'place'),
  cue(
    /\s(?:have |has )?(?:decided|agreed|chose|opted) to (use|adopt|go with|switch to|migrate to|move to|try|build|hire|buy)\s+/gi,
    (m) => `decided_to_${snake(m[1] ?? '')}`,
  ),
  cue(/\s(?:uses|is using|used|relies on)\s+/gi, 'uses'),
  cue(/\sprefers?\s+/gi, 'prefers'),
  cue(/\s(likes|loves|enjoys|hates|dislikes|adores)\s+/gi, (m) => (m[1] ?? '').toLowerCase()),
  cue(/\s(?:chose|picked|selected)\s+/gi, 'chose'),
  cue(/\s(?:is|was|am) (?:an? )?(?:big |huge |massive |total )?fan of\s+/gi, 'fan_of'),
  // "is a bit tired", "is a huge part of" say nothing about what the subject is.
  cue(/\s(?:is|was) (?:an?)\s+(?!(?:\w+ )?(?:fan|part|bit|lot|kind|sort|way|little|great|good|nice|huge|big)\b)/gi, 'is_a'),
  // "Priya Raman is our tech lead": who holds a role (workers/extract/prepare.ts makes a role holder a person).
  cue(/\s(?:is|was|became|has become) (?:our|my|the|their|his|her|your) (?:new |current |acting )?(?=[a-z])/g, 'is'),
  cue(/(?:决定|选择)(?:使用|采用|用)/g, 'decided_to_use'),
  cue(/住在/g, 'lives_in', 'place'),
  cue(/(?:使用|采用)/g, 'uses'),
  cue(/喜欢/g, 'likes'),
];
const POSSESSIVE_RE = /([\p{Lu}][\p{L}\p{N}.-]*(?: [\p{Lu}][\p{L}\p{N}.-]*){0,3})'s ((?:[a-z]+ ){0,2}[a-z]+) (?:is|are|was) (?:an? |the )?([^,.;!?]+)/gu;
const ZH_WORKS_AT_RE = /在([^，。、\s]{2,12}?)(?:工作|上班)/g;
/** Words that end an object phrase. */
const STOPPER =
  /^(?:and|but|because|so|which|who|whom|whose|what|where|how|why|that|since|when|while|to|for|with|in|on|at|as|from|by|after|before|if|or|over|than|like|via|through|during|under|without|within|across|around|near|between|vs|about|into|of|yesterday|today|tomorrow|last|next|this|every|'cause|cause)$/i;
const LIGHT_VERBS = new Set([
  'be',
  'seem',
  'feel',
  'think',
  'know',
  'mean',
  'say',
  'guess',
  'tell',
  'let',
  'wish',
  'hope',
  'can',
  'will',
  'would',
  'do',
  'get',
  'make',
  'look',
  'sound',
  'want',
  'need',
  'try',
  'start',
  'keep',
  'realize',
  'learn',
  'figure',
]);

export function snake(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 100);
}

export function findTriplets(text: string, ctx: TripletContext): RawTriplet[] {
  const out: RawTriplet[] = [];
  for (const c of CUES) {
    c.re.lastIndex = 0;
    for (let m = c.re.exec(text); m; m = c.re.exec(text)) {
      const source = subjectBefore(text.slice(0, m.index), ctx);
      const target = objectAfter(text.slice(m.index + m[0].length), ctx);
      if (source && target && source.toLowerCase() !== target.toLowerCase()) {
        out.push({ source, relation: c.relation(m), target, targetType: c.targetType });
      }
    }
  }
  // The pattern tries every capitalised run and backtracks through it (quadratic on a long one):
  // only run it when the possessive it looks for is there at all.
  for (const m of text.includes("'s ") ? text.matchAll(POSSESSIVE_RE) : []) {
    const source = matchName(m[1] ?? '', ctx);
    const target = objectAfter(m[3] ?? '', ctx);
    if (source && target) out.push({ source, relation: snake(m[2] ?? ''), target, targetType: 'concept' });
  }
  for (const m of text.matchAll(ZH_WORKS_AT_RE)) {
    const source = subjectBefore(text.slice(0, m.index), ctx);
    const target = objectAfter(m[1] ?? '', ctx);
    if (source && target) out.push({ source, relation: 'works_at', target, targetType: 'organization' });
  }
  if (out.length === 0 && !/[\u3400-\u9fff]/.test(text)) {
    const svo = subjectVerbObject(ctx);
    if (svo) out.push(svo);
  }
  return out;
}

/** The entity that ends right before a cue ("Alice" in "Alice works at"), or the speaker for "we". */
function subjectBefore(before: string, ctx: TripletContext): string | null {
  const b = before.replace(/\s+(?:currently|now|still|also|really|just|finally|all|both)$/i, '').trim();
  if (/(?:^|\s)(?:we|我们)$/i.test(b) || /^我们$/.test(b)) return ctx.speaker;
  if (ctx.speaker && ctx.selfAliases?.some((alias) => b.toLowerCase().endsWith(alias.toLowerCase()))) return ctx.speaker;
  let best: string | null = null;
  // Chinese drops a repeated subject ("我是工程师，住在杭州"): the clause's speaker carries over.
  if (/[\u3400-\u9fff，]$/.test(b) && ctx.speaker && ctx.selfAliases?.some((alias) => b.includes(alias))) best = ctx.speaker;
  for (const name of ctx.names) {
    if (b.toLowerCase().endsWith(name.toLowerCase()) && (!best || name.length > best.length || best === ctx.speaker)) {
      const edge = b.length - name.length;
      if (edge === 0 || !/[\p{L}\p{N}]/u.test(b[edge - 1] ?? '') || /[\u3400-\u9fff]/.test(name)) best = name;
    }
  }
  return best;
}

/** The entity that starts the text after a cue, else a short noun phrase up to a stopper. */
function objectAfter(after: string, ctx: TripletContext): string | null {
  const a = after.replace(/^(?:the|a|an|my|our|their|his|her|its|some)\s+/i, '').trim();
  let best: string | null = null;
  for (const name of ctx.names) {
    const lower = a.toLowerCase();
    const n = name.toLowerCase();
    // A Latin name ends at any non-Latin character ("PostgreSQL作为"); a Chinese one needs no boundary.
    const bounded = /[\u3400-\u9fff]/.test(name) || !/[A-Za-z0-9_]/.test(a[n.length] ?? '');
    if (lower.startsWith(n) && bounded && (!best || name.length > best.length)) best = name;
  }
  if (best) return best;
  if (/^[\u3400-\u9fff]/.test(a)) return null;
  const words: string[] = [];
  for (const w of a.replace(/[\u3400-\u9fff].*$/, '').split(/\s+/)) {
    const bare = w.replace(/[,.;:!?)"]+$/, '');
    if (!bare || STOPPER.test(bare) || words.length === 4) break;
    words.push(bare);
    if (bare !== w) break;
  }
  while (words.length && STOPWORDS.has((words[words.length - 1] ?? '').toLowerCase())) words.pop();
  const phrase = normaliseName(words.join(' '), { determiners: true });
  const head = phrase.split(' ').pop()?.toLowerCase() ?? '';
  if (!phrase || PRONOUNS.has(head) || STOPWORDS.has(head) || GENERIC_NOUNS.has(head) || /^\d+$/.test(head)) return null;
  const words2 = phrase.split(' ');
  if (words2.every((w) => STOPWORDS.has(w.toLowerCase())) || words2.some((w) => PRONOUNS.has(w.toLowerCase()))) return null;
  // Without tags a phrase like "tell stories" passes; the sentence's own tags say it is a verb.
  const firstTags = ctx.analysis?.terms.find((t) => t.word === (words2[0] ?? '').toLowerCase())?.tags;
  if (firstTags && (firstTags.has('Verb') || (firstTags.has('Adjective') && words2.length === 1))) return null;
  return phrase;
}

function matchName(raw: string, ctx: TripletContext): string | null {
  const r = raw.toLowerCase();
  return ctx.names.find((n) => n.toLowerCase() === r) ?? null;
}

/**
 * subject -verb_lemma[_preposition]-> first entity after the verb, read from the original
 * sentence's terms (its first person is the speaker). No second parse: the terms are at hand.
 */
function subjectVerbObject(ctx: TripletContext): RawTriplet | null {
  const a = ctx.analysis;
  if (!a) return null;
  const terms = a.terms;
  const head = a.subjectHead;
  const source =
    a.droppedSubject !== null || head === 'i' || head === 'we'
      ? ctx.speaker
      : head
        ? (ctx.names.find((n) => n.toLowerCase().split(/\s+/).includes(head)) ?? null)
        : null;
  if (!source) return null;
  // The verb must follow its subject directly (adverbs, auxiliaries and "not" may sit between):
  // "My friends are my rocks - they motivate me" has no verb of "friends" to use.
  const si = a.droppedSubject !== null ? -1 : terms.findIndex((t) => t.word.replace(/'s$/, '') === head);
  let vi = si + 1;
  const helper = (t: Term | undefined): boolean =>
    !!t && (t.tags.has('Adverb') || t.tags.has('Negative') || ((t.tags.has('Auxiliary') || t.tags.has('Modal')) && !t.tags.has('Copula')));
  while (helper(terms[vi])) vi++;
  const verb = terms[vi];
  if (!verb?.tags.has('Verb') || verb.tags.has('Copula') || /^(?:gonna|wanna|gotta|going)$/.test(verb.text.toLowerCase())) return null;
  const lemma = ctx.lemma(verb.word, verb.tags);
  if (!lemma || LIGHT_VERBS.has(lemma)) return null;
  const negative = terms.slice(si + 1, vi).some((t) => t.tags.has('Negative') || t.word === 'not');
  // "went hiking with" -> go_hiking_with; "agreed to ship" -> agree_to_ship.
  let k = vi + 1;
  const parts = [lemma === 'have' ? (verb.tags.has('PastTense') ? 'had' : 'has') : lemma];
  if (terms[k]?.tags.has('Gerund') || terms[k]?.tags.has('Particle')) parts.push((terms[k++] as Term).word);
  if (terms[k]?.word === 'to' && terms[k + 1]?.tags.has('Infinitive')) {
    parts.push('to', ctx.lemma((terms[k + 1] as Term).word, (terms[k + 1] as Term).tags));
    k += 2;
  }
  if (/^(?:to|at|in|on|with|for|about|from|into)$/.test(terms[k]?.word ?? '')) parts.push((terms[k] as Term).word);
  // The object is looked for in the verb's own phrase: up to six words, before any clause break.
  const rest = objectWindow(terms.slice(k));
  let target: string | null = null;
  let at = Infinity;
  for (const name of ctx.names) {
    const n = name.toLowerCase();
    if (n === source.toLowerCase()) continue;
    for (let i = rest.indexOf(n); i >= 0 && i <= at; i = rest.indexOf(n, i + 1)) {
      const bounded = !/[a-z0-9]/.test(rest[i - 1] ?? ' ') && !/[a-z0-9]/.test(rest[i + n.length] ?? ' ');
      if (!bounded) continue;
      if (i < at || name.length > (target?.length ?? 0)) {
        target = name;
        at = i;
      }
      break;
    }
  }
  if (!target) return null;
  const relation = snake(`${negative ? 'not_' : ''}${parts.join('_')}`);
  return relation ? { source, relation, target, targetType: 'concept' } : null;
}

function objectWindow(terms: readonly Term[]): string {
  let out = '';
  let words = 0;
  for (const t of terms) {
    if (words >= 6 || /^(?:and|but|because|which|who|that|so|while|when)$/.test(t.word)) break;
    out += t.text + t.post;
    if (t.text) words++;
    if (/[,;:—–]|\s-\s/.test(t.post)) break;
  }
  return out.toLowerCase();
}
