/**
 * The phrase grammar of the slot reader (slots.ts): the change phrases that give a new and a
 * replaced value ("from X to Y", "replaced X with Y", "no longer X", "took over Y from Z"), the
 * attributes a verb phrase implies ("works at" → employ, "is a backend engineer" → role), and the
 * words the reader looks for in a clause (copulas, verbs, plans, change). Regular expressions over
 * one clause; no state.
 */
import { EVALUATIVE_WORDS } from './slot-lexicon.js';

export const CHANGE_VERB = String.raw`(?:switch(?:ed|es|ing)?|mov(?:e|ed|es|ing)|migrat(?:e|ed|es|ing)|chang(?:e|ed|es|ing)|upgrad(?:e|ed|es|ing)|downgrad(?:e|ed|es|ing)|bump(?:ed|s|ing)?|updat(?:e|ed|es|ing)|shift(?:ed|s|ing)?|push(?:ed|es|ing)?(?:\s+(?:back|out))?|slipp?(?:ed|s|ing)?|postpon(?:e|ed|es|ing)|delay(?:ed|s|ing)?|reschedul(?:e|ed|es|ing)|brought\s+forward|cut|reduc(?:e|ed|es|ing)|rais(?:e|ed|es|ing)|increas(?:e|ed|es|ing)|lower(?:ed|s|ing)?|went\s+(?:up|down|back)|go(?:es|ing)?\s+back|dropp?(?:ed|s|ing)?|renam(?:e|ed|es|ing)|promot(?:e|ed|es|ing)|convert(?:ed|s|ing)?|transition(?:ed|s|ing)?|settl(?:e|ed|es|ing)|relocat(?:e|ed|es|ing)|port(?:ed|ing)?|rewr(?:ote|itten|iting)|extend(?:ed|s|ing)?|shorten(?:ed|s|ing)?|grew|grown|fell|rose|climbed|jumped)`;
/** Past-tense change verbs that open a statement of their own after a comma ("…, installs dropped from 4 to 1"). */
export const CHANGE_VERB_PAST = String.raw`(?:switched|moved|migrated|changed|upgraded|downgraded|bumped|dropped|rose|fell|grew|shrank|went\s+(?:up|down|back)|doubled|halved|jumped|climbed|increased|decreased|slipped|shifted)`;
/** Where a value phrase ends: punctuation, or a word that opens a new part of the sentence. */
const END = String.raw`(?=\s*(?:$|[,.](?!\d)|[;!?)\]—–]|\s-\s|\s(?:for|because|since|as|and|but|so|on|at|in|last|this|next|yesterday|today|tonight|tomorrow|starting|from|after|before|by|when|which|who|now|anymore|instead|again|too|already|though|although|while|until|effective|due|per|thanks|if|unless|with|without)\b))`;
const PHRASE = String.raw`((?:[^,.;!?()]|[,.](?=\d))+?)`;
/** A short phrase just before a verb: up to four words. */
const LEAD = String.raw`((?:[\w.+#@'’-]+\s+){0,3}[\w.+#@'’-]+)`;

export interface Pattern {
  re: RegExp;
  /** Group numbers of the new and the replaced value (0: none). */
  neu: number;
  old: number;
  negated?: boolean;
  /** Group of what the change was done to ("extended [the deadline] to October 14"): the slot's subject. */
  object?: number;
}

export const PATTERNS: Pattern[] = [
  // "moved the desktop app from Postgres to SQLite", "standup went from 9:30 to 10"
  // "moved the job queue off Redis Streams onto RabbitMQ"
  // ("paid off and it was great to conquer…" is no move: the old value is a phrase, not a clause.)
  {
    re: new RegExp(
      String.raw`\b(?:from|off(?:\s+of)?|away\s+from)\s+(?!(?:and|but|so|then|it|that|this|i|we|he|she|they)\b)${PHRASE}\s+(?:to|into|onto|over\s+to)\s+${PHRASE}${END}`,
      'i',
    ),
    old: 1,
    neu: 2,
  },
  // "replaced Postgres with SQLite", "swapped out Jenkins for GitHub Actions", "ditched Vim for Neovim"
  {
    re: new RegExp(
      String.raw`\b(?:replac(?:e|ed|es|ing)|swap(?:ped|s|ping)?(?:\s+out)?|ditch(?:ed|es|ing)?|trad(?:e|ed|es|ing)(?:\s+in)?|exchang(?:e|ed|es|ing)|substitut(?:e|ed|es|ing)|switch(?:ed|es|ing)?|chang(?:e|ed|es|ing)|dump(?:ed|s|ing)?|dropp?(?:ed|s|ing)?)\s+(?:out\s+)?${PHRASE}\s+(?:with|for|by)\s+${PHRASE}${END}`,
      'i',
    ),
    old: 1,
    neu: 2,
  },
  // "Marco took over on-call from Aisha", "Priya took over the billing service from Sam"
  {
    re: new RegExp(String.raw`${LEAD}\s+(?:has\s+|have\s+|had\s+)?(?:took|takes|taken|taking)\s+over\s+([^,.;!?]{1,40}?)\s+from\s+${PHRASE}${END}`, 'i'),
    neu: 1,
    old: 3,
    object: 2,
  },
  // "SQLite replaced Postgres", "Priya took over from Sam"
  {
    re: new RegExp(
      String.raw`${LEAD}\s+(?:has\s+|have\s+|had\s+)?(?:replaced|replaces|is\s+replacing|took\s+over\s+from|takes\s+over\s+from|has\s+taken\s+over\s+from|superseded|supersedes|succeeded|succeeds)\s+${PHRASE}${END}`,
      'i',
    ),
    neu: 1,
    old: 2,
  },
  // "SQLite instead of Postgres"
  { re: new RegExp(String.raw`${LEAD}\s*,?\s+(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+${PHRASE}${END}`, 'i'), neu: 1, old: 2 },
  // "it's Thursday, not Friday"
  { re: new RegExp(String.raw`\b(?:is|are|it's|that's|it is|that is)\s+(?:actually\s+|now\s+)?${PHRASE}\s*,?\s+not\s+${PHRASE}${END}`, 'i'), neu: 1, old: 2 },
  // "not Friday but Thursday"
  { re: new RegExp(String.raw`\bnot\s+${PHRASE}\s*,?\s+but\s+${PHRASE}${END}`, 'i'), old: 1, neu: 2 },
  // "prefer tabs over spaces"
  { re: new RegExp(String.raw`\bprefer(?:s|red)?\s+${PHRASE}\s+(?:over|to)\s+${PHRASE}${END}`, 'i'), neu: 1, old: 2 },
  // "doesn't like dark mode anymore", "no longer uses Jenkins", "stopped drinking coffee"
  {
    re: new RegExp(
      String.raw`\b(?:don't|doesn't|do\s+not|does\s+not|no\s+longer|not)\s+(?:really\s+|even\s+)?(?:like|love|enjoy|use|prefer|want|drink|eat|need|run|host|deploy\s+(?:on|to)|work(?:s)?\s+(?:at|for|on)|live(?:s)?\s+in)\s+${PHRASE}${END}`,
      'i',
    ),
    neu: 0,
    old: 1,
    negated: true,
  },
  {
    re: new RegExp(
      String.raw`\b(?:no\s+longer|stopped|quits?|quitting|traded\s+in|sold|gave\s+up(?:\s+on)?|got\s+rid\s+of|dropped|ditched|dumped|binned|scrapped|moved\s+(?:away\s+from|off(?:\s+of)?)|retired|abandoned|sunset|killed|decommissioned|deprecated|removed|cancell?ed|left(?!\s+[\w'’]+\s+(?:her|his|their|a|an|the|my|our|your|some|me|him|them)\b))\s+(?:using\s+|use\s+|drinking\s+|eating\s+|on\s+|with\s+|at\s+|in\s+)?${PHRASE}${END}`,
      'i',
    ),
    neu: 0,
    old: 1,
    negated: true,
  },
  // "I hate tabs now": a negative preference takes back a liking.
  {
    re: new RegExp(String.raw`\b(?:hate|hates|dislike|dislikes|can't\s+stand|cannot\s+stand|detest|detests)\s+${PHRASE}${END}`, 'i'),
    neu: 0,
    old: 1,
    negated: true,
  },
  // "Jenkins is gone", "the Heroku app was decommissioned"
  {
    re: new RegExp(
      String.raw`${LEAD}\s+(?:is|are|was|were|has\s+been|have\s+been|got|'s|’s)\s+(?:now\s+|finally\s+|officially\s+)?(?:gone|dead|retired|decommissioned|deprecated|dropped|removed|cancell?ed|shut\s+down|sunset|history|no\s+more|discontinued|turned\s+off|switched\s+off|abandoned|swapped\s+out|replaced|ripped\s+out|phased\s+out|ditched|over|done|finished)${END}`,
      'i',
    ),
    neu: 0,
    old: 1,
    negated: true,
  },
  // "switched to SQLite", "the deadline slipped to April 2", "moved standup to 10am", "upgraded to Node 22"
  {
    re: new RegExp(String.raw`\b${CHANGE_VERB}\s+(?:([^,.;!?]{0,40}?)\s)??(?:to|into|onto|over\s+to|up\s+to|down\s+to)\s+${PHRASE}${END}`, 'i'),
    neu: 2,
    old: 0,
    object: 1,
  },
  // "back to two-week sprints", "returned to Jenkins"
  { re: new RegExp(String.raw`\b(?:back|returned|returning|reverted|reverting)\s+(?:to|on|onto)\s+${PHRASE}${END}`, 'i'), neu: 1, old: 0 },
  // "is now SQLite", "standup is now at 10"
  { re: new RegExp(String.raw`\b(?:is|are|'s|’s)\s+now\s+(?:at\s+|on\s+|in\s+)?${PHRASE}${END}`, 'i'), neu: 1, old: 0 },
];

/** A role noun phrase: up to three words and a job noun ("backend engineer", "engineering manager"). */
export const ROLE = String.raw`((?:[\p{L}-]+\s+){0,3}(?:lead|engineer|developer|manager|designer|analyst|scientist|architect|director|intern|consultant|founder|ceo|cto|cfo|coo|vp|head|nurse|teacher|professor|doctor|lawyer|accountant|recruiter|researcher|product owner|pm|em))\b`;

/** Attribute words implied by verb phrases ("works at" → employ, "lives in" → resid, "likes" → pref). */
export function attributes(text: string, hasCategory: boolean): string[] {
  const out: string[] = [];
  if (
    /\b(?:works?|worked|working)\s+(?:at|for)\b|\bemployed\s+(?:at|by)\b|\bhired\s+(?:at|by)\b|\b(?:joined|joins|joining)\s+\p{Lu}|\bjob\s+at\b|\b(?:started|starts|starting)\s+(?:at|with)\s+\p{Lu}|\bemployer\b|\b(?:i'm|i\s+am|is|was|as)\s+(?:a|an|the)\s+[\p{L}\s-]{2,40}?\s+(?:at|for)\s+\p{Lu}/iu.test(
      text,
    )
  )
    out.push('employ');
  const person = String.raw`(?:[Ii]|[Ww]e|[Hh]e|[Ss]he|[Tt]hey|[Uu]ser|[Ff]amily|\p{Lu}\p{Ll}+)`;
  if (
    !hasCategory &&
    (/\blives?\s+in\b|\bliving\s+in\b|\bbased\s+in\b|\bhome\s+is\s+in\b/iu.test(text) ||
      new RegExp(String.raw`\b${person}(?:'ve|\s+have|\s+just|\s+finally)?\s+(?:moved|relocated|relocating|moving)\s+(?:back\s+)?to\s+\p{Lu}`, 'u').test(
        text,
      ) ||
      /\b(?:i'm|i\s+am|user\s+is|we're|we\s+are|he's|she's|they're)\s+(?:now\s+|still\s+)?(?:in|living\s+in|based\s+in)\s+\p{Lu}/iu.test(text))
  )
    out.push('resid');
  if (/\breports?\s+to\b|\breporting\s+to\b/i.test(text)) out.push('manag');
  // "the tech lead on the Payments team", "promoted to staff engineer", "moved into the engineering manager role": a role.
  if (
    /\b(?:promoted\s+to|role\s+is|title\s+is|position\s+is|works?\s+as|hired\s+as|joined\s+as)\b/i.test(text) ||
    new RegExp(String.raw`\b(?:is|am|i'm|are|was|as)\s+(?:now\s+)?(?:the|a|an|our)\s+${ROLE}`, 'iu').test(text) ||
    /\b(?:moved|moves|moving|stepped|steps|stepping|transitioned|switched|went)\s+(?:into|to|up\s+to)\s+(?:the|a|an)\s+(?:[\p{L}-]+\s+){0,3}(?:role|position|job|title)\b/iu.test(
      text,
    )
  )
    out.push('role');
  if (/\b(?:like|likes|liked|love|loves|loved|prefer|prefers|preferred|enjoy|enjoys|hate|hates|dislike|dislikes)\b|\bfan\s+of\b/i.test(text)) out.push('pref');
  return out;
}

// Words of one clause the reader (slots.ts) looks for: copulas, verbs, plans, change.
/** A copula; "'s" only after a pronoun ("it's", "that's"): "James's head" is a possessive. */
export const COPULA_RE = /\b(?:is|are|was|were|am|be|been|becomes?|became)\b|(?<=\b(?:it|that|he|she|what|there|who|here|where|this))['’]s\b|:/i;
/** "'s" after a name that owns what follows ("James's skills"), not "is" ("Rachel's the manager", "Sam's in charge now"). */
export const POSSESSIVE_RE =
  /^['’]s?\s+(?!(?:the|a|an|now|still|not|also|in|on|at|my|our|your|his|her|their|been|going|gonna|got|done|back|here|there|gone|out|off|just|always|never|really|so|very|too|what|who|where)\b)/i;
/** A copula and a definite description or a clause ("is the manager", "is what we use", "is in charge"), not a quality ("is the best"). */
export const DEFINITE_PREDICATE_RE =
  /^(?:is|are|was|were|'s|’s|am|be|been|becomes?|became|:)\s*(?:now\s+|still\s+|actually\s+|officially\s+)?(?:(?:the|my|our|your|his|her|their)\s+(?!(?:best|worst|greatest|most|least|same)\b)|what\b|who\b|where\b|which\b|whose\b|in charge\b|responsible\b|on[\s-]call\b|on duty\b)/i;
export const FAVOURITE_RE = /\b(?:fav(?:e|ou?rite)?|main|primary|default|preferred|go-to|current|usual|only)\b/i;
export const PLANNED_RE = /\b(?:will|'ll|’ll|shall|going to|gonna|plan(?:s|ning)? to|intend(?:s)? to|about to|considering|thinking (?:of|about))\b/i;
export const CHANGE_RE =
  /\b(?:now|switch\w*|mov(?:e|ed|es|ing)|migrat\w*|chang(?:e|ed|es|ing)|replac\w*|swap\w*|ditch\w*|upgrad\w*|downgrad\w*|bump\w*|shift\w*|push(?:ed)? (?:back|out)|slipp?\w*|postpon\w*|delay\w*|reschedul\w*|brought forward|cut|reduc\w*|rais(?:e|ed)|increas\w*|lower(?:ed)|went (?:up|down)|renam\w*|promot\w*|convert\w*|transition\w*|relocat\w*|went|became|become|back to|back on|reverted|anymore|any more|no longer|from now on|going forward|these days|nowadays|instead|took over|taken over|is gone|are gone)\b/i;
/** The first verb-like word: a copula, a modal, or a common verb form. */
export const VERB_RE =
  /\b(?:is|are|was|were|am|(?<=\b(?:it|that|he|she|what|there|who|here|where|this))'s|'re|’re|be|been|has|have|had|will|would|can|could|should|must|use[sd]?|using|run|runs|ran|running|work(?:s|ed|ing)?|live[sd]?|living|prefer(?:s|red)?|like[sd]?|love[sd]?|hate[sd]?|enjoy(?:s|ed)?|want(?:s|ed)?|need(?:s|ed)?|deploy(?:s|ed)?|host(?:s|ed)?|join(?:s|ed)?|start(?:s|ed)|drink(?:s)?|drank|eat(?:s)?|ate|drive(?:s)?|drove|own(?:s|ed)?|speak(?:s)?|meet(?:s)?|met|take(?:s)?|took|go(?:es)?|went|get(?:s)?|got|switch(?:ed|es)?|mov(?:e|ed|es)|migrat(?:e|ed|es)|chang(?:e|ed|es)|replac(?:e|ed|es)|upgrad(?:e|ed|es)|decided|chose|picked|opted|settled|slipped|pushed|cut|raised|dropped|promoted|reports?|manages?|leads?|happens?|falls?|sits?)\b/i;

/**
 * A predicate that says how someone feels or what they are about to do, not an attribute's value:
 * "is determined to improve", "is gonna keep pushing", "is so excited to share", "is sure it'll
 * pay off". Intensifiers before it are skipped.
 */
export function stateOfMind(predicate: string): boolean {
  const first = /^(?:(?:so|really|very|super|quite|totally|kinda|always|pretty|truly|just|also)\s+)*([\p{L}']+)/iu.exec(predicate.trim())?.[1]?.toLowerCase();
  return first !== undefined && (EVALUATIVE_WORDS.has(first) || STATE_OF_MIND.has(first));
}
const STATE_OF_MIND = new Set([
  'gonna',
  'about',
  'able',
  'ready',
  'willing',
  'keen',
  'eager',
  'dying',
  'afraid',
  'worried',
  'nervous',
  'curious',
  'hopeful',
  'confident',
  'committed',
  'devoted',
]);
