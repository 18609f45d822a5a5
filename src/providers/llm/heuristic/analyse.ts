/**
 * One pass of compromise over a sentence, reduced to what the rules need: the terms with their
 * tags, and the sentence's grammatical shape (subject head, first verb, dropped subject).
 */
import nlp from 'compromise';

export interface Term {
  /** Surface text ('' for the hidden half of a contraction). */
  text: string;
  /** Lower-case word, contractions expanded ("I'm" -> "i", "" -> "am"). */
  word: string;
  tags: ReadonlySet<string>;
  /** Punctuation and spacing after the term. */
  post: string;
  /** compromise's phrase chunk: Noun, Verb, Adjective or Pivot. */
  chunk: string;
}

/** How a sentence without a written subject starts ("Lost my job", "Researching agencies", "Love it"). */
export type DroppedSubject = 'past' | 'perfect' | 'gerund' | 'present' | 'aux' | null;

export interface Analysis {
  text: string;
  terms: Term[];
  /** Lower-case head word of the subject before the first verb, if any. */
  subjectHead: string | null;
  droppedSubject: DroppedSubject;
  /** Starts with a bare verb and has no subject: an instruction or a cheer ("Hang in there"). */
  imperative: boolean;
  /** "I"/"we" (or a dropped subject) followed by a past-tense or present-perfect verb. */
  pastFirstPerson: boolean;
  firstPerson: boolean;
  hasVerb: boolean;
  /** The subject is a pointer into the conversation: "it", "this pic", "those colors", "here". */
  deicticSubject: boolean;
}

interface RawTerm {
  text?: string;
  normal?: string;
  implicit?: string;
  tags?: Set<string>;
  post?: string;
  chunk?: string;
}

/** Verbs that, sentence-initial and without a subject, mean the speaker ("Love that painting!"). */
const SPEAKER_VERBS = new Set([
  'love',
  'like',
  'hate',
  'miss',
  'want',
  'need',
  'think',
  'guess',
  'hope',
  'wish',
  'feel',
  'enjoy',
  'appreciate',
  'wanna',
  'gotta',
  'got',
  'had',
  'have',
  'know',
  'mean',
  'adore',
  'prefer',
  'believe',
  'remember',
  'plan',
]);
const LEADING_SKIP = new Set(['Conjunction', 'Adverb', 'Interjection', 'Date', 'Preposition', 'Value', 'Expression']);
const DEICTIC = new Set(['it', 'this', 'that', 'these', 'those', 'here', 'there', 'such', 'you', 'your']);
const FIRST_PERSON_RE = /\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself)\b|我(?!们)/i;

export function analyse(text: string): Analysis {
  const doc = nlp(text);
  const terms: Term[] = [];
  // doc.docs is compromise's own term list: reading it is far cheaper than doc.json().
  for (const sentence of doc.docs as RawTerm[][]) {
    for (const t of sentence) {
      terms.push({
        text: t.text ?? '',
        word: (t.implicit ?? t.normal ?? t.text ?? '').toLowerCase(),
        tags: t.tags ?? new Set(),
        post: t.post ?? '',
        chunk: t.chunk ?? '',
      });
    }
  }
  const firstPerson = FIRST_PERSON_RE.test(text);
  let firstVerb = terms.findIndex((t) => t.tags.has('Verb'));
  if (firstVerb < 0) firstVerb = pluralAsVerb(terms);
  const hasVerb = firstVerb >= 0;

  let subjectHead: string | null = null;
  for (let i = (hasVerb ? firstVerb : terms.length) - 1; i >= 0; i--) {
    const t = terms[i] as Term;
    if (t.tags.has('Noun') || t.tags.has('Pronoun')) {
      subjectHead = t.word.replace(/'s$/, '');
      break;
    }
  }

  let droppedSubject: DroppedSubject = null;
  let imperative = false;
  let deicticSubject = terms.slice(0, hasVerb ? firstVerb : 0).some((t) => DEICTIC.has(t.word));
  if (hasVerb && subjectHead === null && onlySkippableBefore(terms, firstVerb)) {
    const v = terms[firstVerb] as Term;
    const after = terms.slice(firstVerb + 1, firstVerb + 4).map((t) => t.word);
    if (v.text.toLowerCase() === 'gonna' || (v.word === 'going' && after[0] === 'to')) {
      // "Gonna be a great night" hides "it", not the speaker.
      if (after.includes('be')) deicticSubject = true;
      else droppedSubject = 'aux';
    } else if (v.word === 'been') droppedSubject = 'perfect';
    // "Love that painting!" is the speaker; "Love and acceptance can ..." has a verb of its own.
    else if (SPEAKER_VERBS.has(v.word) && !finiteVerbAfter(terms, firstVerb)) droppedSubject = 'present';
    else if (v.tags.has('Gerund')) {
      // "Talking about X is crucial": the gerund phrase is the subject.
      if (finiteVerbAfter(terms, firstVerb)) subjectHead = v.word;
      else droppedSubject = 'gerund';
    } else if (
      (v.tags.has('PastTense') && !v.tags.has('Participle')) ||
      (/^[a-z]{2,}[^e]ed$/.test(v.word) && !v.tags.has('Participle') && !v.tags.has('Adjective'))
    )
      // compromise tags a capitalised "Traded in the car" as an imperative; an -ed verb opening chat is a past event.
      droppedSubject = 'past';
    // "Reminds me of ..." hides "it".
    else if (/[^s]s$/.test(v.word) && v.tags.has('PresentTense') && !v.tags.has('Infinitive')) deicticSubject = true;
    else imperative = v.tags.has('Infinitive') || v.tags.has('Imperative') || v.tags.has('PresentTense');
  }

  let pastFirstPerson = droppedSubject === 'past' || droppedSubject === 'perfect';
  for (let i = 0; i < terms.length && !pastFirstPerson; i++) {
    if ((terms[i] as Term).word !== 'i' && (terms[i] as Term).word !== 'we') continue;
    let j = i + 1;
    while (terms[j]?.tags.has('Adverb')) j++;
    const v = terms[j];
    const next = terms[j + 1];
    if (!v?.tags.has('Verb')) continue;
    pastFirstPerson =
      (v.tags.has('PastTense') && !v.tags.has('Copula') && !v.tags.has('Auxiliary')) ||
      (v.word === 'was' && next !== undefined && next.tags.has('Gerund')) ||
      ((v.word === 'have' || v.word === 'had') && v.tags.has('Auxiliary') && next?.tags.has('Participle') === true);
  }
  return { text, terms, subjectHead, droppedSubject, imperative, pastFirstPerson, firstPerson, hasVerb, deicticSubject };
}

/**
 * compromise reads "The API runs on port 8787" as nouns only. A plural-looking word between a
 * noun and a preposition or determiner is taken as the verb ("runs", "lives", "uses").
 */
function pluralAsVerb(terms: readonly Term[]): number {
  for (let i = 1; i < terms.length - 1; i++) {
    const [prev, t, next] = [terms[i - 1] as Term, terms[i] as Term, terms[i + 1] as Term];
    const afterNoun = prev.tags.has('Noun') && !prev.tags.has('Pronoun');
    const beforeObject = next.tags.has('Preposition') || next.tags.has('Determiner');
    if (t.tags.has('Plural') && /[^s]s$/.test(t.word) && afterNoun && beforeObject) {
      return i;
    }
  }
  return -1;
}

/**
 * Chinese gets no English parse: the rules that read terms (subject, tense) do not apply, and
 * the Chinese cue patterns in classify.ts do the work. "我" makes it first person.
 */
export function analyseChinese(text: string): Analysis {
  return {
    text,
    terms: [],
    subjectHead: null,
    droppedSubject: null,
    imperative: false,
    pastFirstPerson: false,
    firstPerson: /我/.test(text),
    hasVerb: true,
    deicticSubject: false,
  };
}

function onlySkippableBefore(terms: Term[], index: number): boolean {
  for (let i = 0; i < index; i++) {
    const t = terms[i] as Term;
    if (![...t.tags].some((tag) => LEADING_SKIP.has(tag))) return false;
  }
  return true;
}

/** A conjugated verb later in the same clause means a leading gerund is the subject ("Painting relaxes me"). */
function finiteVerbAfter(terms: Term[], index: number): boolean {
  if (/[,;:—–]|\s-\s/.test(terms[index]?.post ?? '')) return false;
  for (let i = index + 1; i < terms.length; i++) {
    const t = terms[i] as Term;
    const tensed = (t.tags.has('PresentTense') || t.tags.has('PastTense')) && !t.tags.has('Gerund') && !t.tags.has('Infinitive');
    const finite = t.tags.has('Copula') || t.tags.has('Modal') || tensed;
    if (t.tags.has('Verb') && finite) return true;
    if (/[,;:—–]|\s-\s/.test(t.post)) return false;
  }
  return false;
}

type ToInfinitive = (word: string, model: unknown, tense: string) => string;

/** compromise's verb model, used without parsing a document (a parse per word is ~100x slower). */
export function makeLemmatizer(): (word: string, tags: ReadonlySet<string>) => string {
  const world = nlp.world() as { model?: unknown; methods?: { two?: { transform?: { verb?: { toInfinitive?: ToInfinitive } } } } };
  const toInfinitive = world.methods?.two?.transform?.verb?.toInfinitive;
  return (word, tags) => {
    const w = word.toLowerCase();
    if (tags.has('Infinitive') || !toInfinitive) return w;
    const tense = tags.has('Gerund') ? 'Gerund' : tags.has('PastTense') ? 'PastTense' : tags.has('Participle') ? 'Participle' : 'PresentTense';
    return toInfinitive(w, world.model, tense) || w;
  };
}

/** The tag compromise's lexicon gives a word out of context ("took" -> PastTense), if any. */
export function lexiconTag(word: string): string | undefined {
  const world = nlp.world() as { model?: { one?: { lexicon?: Record<string, string> } } };
  return world.model?.one?.lexicon?.[word.toLowerCase()];
}
