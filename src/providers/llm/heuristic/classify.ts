/**
 * Decides whether a sentence is worth remembering and as which kind, with importance and
 * confidence. Rules run from the most specific cue to the least: an insight or a decision
 * outranks the past tense that would otherwise make it an episode.
 */
import { asksUnmarked } from '../../../domain/query-intent.js';
import type { MemoryKind } from '../../../domain/vocabulary.js';
import type { Analysis } from './analyse.js';
import { CHATTER_WORDS, EMPHASIS_RE, GENERIC_NOUNS, HEDGE_RE, IMPERATIVE_VERBS, VAGUE_SUBJECTS, contentTokens } from './lexicon.js';
import { hasCjk } from './sentences.js';

export interface Verdict {
  kind: MemoryKind;
  importance: number;
  confidence: number;
}

const BASE_IMPORTANCE: Record<MemoryKind, number> = {
  decision: 8,
  plan: 6,
  procedure: 7,
  preference: 6,
  profile: 7,
  fact: 5,
  episode: 4,
  insight: 7,
};
const BASE_CONFIDENCE: Record<MemoryKind, number> = {
  decision: 0.85,
  plan: 0.75,
  procedure: 0.85,
  preference: 0.8,
  profile: 0.85,
  fact: 0.7,
  episode: 0.75,
  insight: 0.7,
};

const WEEKDAY = '(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)';

export const INSIGHT_RE = new RegExp(
  [
    "\\bi(?:'ve| have)? (?:just |finally |now |recently )?(?:reali[sz]ed|learned|learnt|discovered|figured out) (?:that|how|what|the hard way|just how|a lot about|so much about)\\b",
    '\\bi (?:just |finally |now )?reali[sz]ed\\b',
    "\\bi(?:'m| am) (?:starting to |beginning to |coming to )?reali[sz]e\\b",
    '\\blessons? (?:learned|learnt)\\b',
    '\\bthe (?:key|trick|secret|lesson) (?:is|was|here is)\\b',
    '\\bturns out\\b',
    '\\bit turned out\\b',
    '\\btakeaway\\b',
    '\\bin hindsight\\b',
    '\\blooking back\\b',
    '我意识到',
    '我发现',
    '教训',
    '关键是',
    '原来',
  ].join('|'),
  'i',
);

export const DECISION_RE = new RegExp(
  [
    "\\b(?:we|i|they|the team|team)(?:'ve| have)? (?:finally |just |officially |all )?(?:decided|chose|opted|settled on|agreed (?:to|on|that)|went with|picked)\\b",
    "\\b(?:we|i)(?:'re| are| am|'m) going with\\b",
    '\\bdecision:',
    "\\blet's go with\\b",
    '\\bdecided to\\b',
    "\\bwe(?:'ll| will| are going to|'re going to) (?:use|go with|adopt|switch to|stick with|migrate to|move to)\\b",
    '\\b(?:made|make) (?:the|a|my|our) (?:decision|call)\\b',
    // A change the speaker made is a decision: "we moved the app to SQLite", "I switched to zsh", "from now on …".
    "\\b(?:we|i|the team)(?:'ve| have)? (?:just |finally |officially |now |recently |already )?(?:switched|migrated|replaced|swapped|ditched|dropped|upgraded|downgraded|changed|transitioned|standardi[sz]ed|adopted|retired|decommissioned|deprecated|went back|moved back|moved (?:the|our|my|all|every|off|away|over|from)|moved (?:\\S+ ){1,3}(?:to|from|over|off|onto|into)|left \\S+ for)\\b",
    "\\b(?:we|i)(?:'re| are| am|'m) (?:now )?(?:switching|migrating|moving (?:the|our|over|off|away|from)|replacing|standardi[sz]ing)\\b",
    '\\bfrom now on\\b',
    '\\bgoing forward\\b',
    '\\bfrom here on\\b',
    '\\bmade up (?:my|our) minds?\\b',
    '\\bthe decision (?:is|was)\\b',
    '决定',
    '选择了',
    '选定',
    '确定(?:使用|采用|用)',
    '采用了',
    '敲定',
    '拍板',
  ].join('|'),
  'i',
);

export const PLAN_RE = new RegExp(
  [
    `\\b(?:next|coming|upcoming) (?:week|month|quarter|year|weekend|summer|winter|spring|fall|autumn|semester|sprint|release|${WEEKDAY})\\b`,
    "\\b(?:i|we)(?:'ll| will| shall)\\b(?! (?:never forget|always remember|always cherish|keep (?:you|ya) posted|let you know|see))",
    "\\b(?:i|we)(?:'m|'re| am| are) (?:(?:really|so|super|also|still) )?(?:going to|gonna|planning|about to|hoping to|thinking (?:of|about)|looking to|looking forward to|getting ready|preparing|aiming|trying to|off to|considering|excited to|working (?:on|towards?))\\b",
    "\\b(?:i|we) (?:(?:really|also|still|definitely) )?(?:plan|intend|aim|hope|want|wanna|need|have|'d like|'d love|would like|would love|can't wait) to\\b",
    "\\b(?:i|we)(?:'re| are|'m| am) (?:gonna|going to)\\b",
    '\\bplans?:',
    '\\btodo\\b',
    '\\bto-do\\b',
    '\\btomorrow\\b',
    '\\bgonna\\b',
    '计划',
    '打算',
    '下周',
    '下个月',
    '明天',
    '明年',
    '准备',
    '将要',
    '要去',
    '想要',
  ].join('|'),
  'i',
);

export const PREFERENCE_RE = new RegExp(
  [
    "\\b(?:i|we) (?:(?:really|absolutely|totally|just|also|still|do|definitely|kinda|truly|especially) )*(?:prefer|like|love|adore|enjoy|hate|dislike|detest|cherish|treasure|value|can't stand|cannot stand)\\b(?! (?:that|this|it|your|you|those|these|to hear|hearing)\\b)",
    "\\bi(?:'m| am) (?:(?:really|so|super|very) )?(?:a (?:big |huge )?fan of|into|passionate about|obsessed with|fond of|allergic to|crazy about)\\b",
    '\\b(?:i|we) (?:always|never|usually|tend to)\\b',
    '\\bmy (?:fav(?:e|ou?rite)?|top pick|go-to)\\b',
    '\\b(?:fav(?:e|ou?rite)?|top pick) is\\b',
    '喜欢',
    '偏好',
    '讨厌',
    '最爱',
    '更爱',
    '爱吃',
    '爱喝',
  ].join('|'),
  'i',
);

export const PROFILE_RE = new RegExp(
  [
    "\\bi(?:'m| am) (?:a|an) (?!bit\\b|little\\b|lot\\b|fan\\b|big fan\\b|huge fan\\b|mess\\b|great\\b|good\\b)[a-z]+",
    '\\bi work (?:as|at|for|in|on)\\b',
    '\\bi live (?:in|at|near|with)\\b',
    '\\bmy name is\\b',
    "\\bi(?:'m| am) from\\b",
    '\\bi come from\\b',
    '\\bi grew up\\b',
    '\\bi was born\\b',
    "\\bi(?:'m| am) \\d+(?: years old)?\\b",
    "\\bi(?:'ve| have) been (?:married|(?:working|living|teaching|studying) (?:as|at|in|for \\d))",
    "\\bi (?:have|'ve got) (?:\\d+|one|two|three|four|five|a|an) (?:kids?|children|sons?|daughters?|brothers?|sisters?|siblings|dogs?|cats?|pets?|husband|wife|partner)\\b",
    "\\bmy (?:husband|wife|partner|son|daughter|kids|children|mom|dad|mother|father|brother|sister|boyfriend|girlfriend)(?:'s name is| is named| is an? | are (?:\\d+|named|twins))",
    '\\bmy (?:job|role|title|position|major|name|age|birthday) is\\b',
    "\\bi(?:'m| am) (?:married|single|divorced|engaged|retired|vegan|vegetarian|transgender|trans|gay|lesbian|bisexual|queer|pregnant|self-employed|unemployed)\\b",
    '\\bi (?:studied|graduated|majored|speak|own|run a|run my|moved (?:to|from|here))\\b',
    '我是',
    '我住在',
    '我在.{1,12}(?:工作|上班|上学)',
    '我叫',
    '我的名字',
    '我来自',
    '我有.{0,3}[个只位](?:孩子|儿子|女儿|狗|猫)',
  ].join('|'),
  'i',
);

const PAST_MARKER_RE =
  /\b(?:yesterday|last (?:week|month|year|night|weekend|summer|winter|spring|fall|time|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|\d+ (?:days|weeks|months|years) ago|earlier today|the other day)\b/i;
const CODEISH_RE =
  /`[^`]+`|(?:^|\s)--?[a-z][\w-]*|[\w.-]*\/[\w./-]+|\b\w+\.(?:ts|js|json|py|sh|ya?ml|toml|md|sql|env)\b|\b[a-z]+_[a-z_]+\b|\b(?:npm|npx|pnpm|yarn|git|docker|kubectl|pip|cargo|make)\b/;
const IMPERATIVE_ALT = [...IMPERATIVE_VERBS].join('|');
const PROCEDURE_RE = new RegExp(
  [
    `^to [a-z][^,]{2,80},\\s*(?:first\\s+)?(?:${IMPERATIVE_ALT}|go to|click|press)\\b`,
    `^first,?\\s+(?:${IMPERATIVE_ALT})\\b.*\\bthen\\b`,
    '首先.*然后',
    '步骤',
    '先.{1,20}再',
    '运行\\s*`',
    '执行\\s*`',
  ].join('|'),
  'i',
);
const IMPERATIVE_START_RE = new RegExp(
  `^(?:(?:always|never|please|just|then|next|finally|also|don't forget to|make sure (?:to|you)|remember to)\\s+)*(?:${IMPERATIVE_ALT})\\b`,
  'i',
);
const YOU_MUST_RE = /\byou (?:need|have|should|must|can|'ll need) (?:to )?(?:run|use|call|set|add|install|configure|restart|enable|export)\b/i;

/**
 * A standing request to the assistant about how to work with the speaker ("please answer me in
 * English", "always give me vim keybindings", "I'd rather you use tabs"): a preference, though
 * phrased as an instruction.
 */
const REQUEST_RE =
  /^(?:please\s+|pls\s+|kindly\s+)?(?:always\s+|never\s+|from now on,?\s+)?(?:answer|reply|respond|write|talk|speak|explain|use|give|show|format|keep|call|address|send)\b.*\b(?:me|my|to me|for me)\b|\b(?:i'd|i would) (?:rather|prefer|like) (?:you|it if you)\b|\b(?:i|we) (?:want|need) you to (?:always|never|use|answer|reply|write)\b/i;

/** A correction of something said before: "it's X, not Y", "I meant X", "I misspoke". */
const CORRECTION_RE =
  /\b(?:it's|it is|that's|that is|it was|that was)\s+(?:actually\s+)?[^,;]{1,40},?\s+not\s+\S|\bi (?:meant|misspoke|mixed (?:it|them) up)\b|\bnot\s+[^,;]{1,30},\s*but\s+\S/i;

/** Talks to the listener ("your painting is lovely"): about them, said by someone else, rarely a fact. */
const ADDRESSED_RE = /\b(?:you|your|yours|yourself|ya)\b/i;
const NOT_ADDRESSING_RE = /\b(?:you know|thank you|see you|you guys know)\b/gi;

/** "It is important that we validate input": "it" stands for the clause that follows. */
const EXTRAPOSED_RE =
  /^it(?:'s| is| was) (?:(?:very|really|so|absolutely) )?(?:important|crucial|essential|critical|key|vital|necessary|required|mandatory|worth noting|true|clear|likely|possible) (?:that|to)\b/i;

const STANDING_RE = /\b(?:always|never|from now on|going forward|by default|whenever|every time)\b/i;

export function isQuestion(text: string): boolean {
  if (/[?？]\s*["')\]]*\s*$/.test(text) || /[吗呢么]\s*[。!！]?\s*$/.test(text)) return true;
  return asksUnmarked(text) && !STANDING_RE.test(text);
}

/**
 * "can you help me", "could you look up", "help me set up my calendar": a one-off request to the
 * assistant, which states nothing of the speaker's world. Standing requests ("please answer me in
 * English", "always give me vim keybindings") are preferences (REQUEST_RE); "remind me to …" is a
 * plan.
 */
const ONE_OFF_REQUEST_RE = /^(?:(?:and|also|so|ok|okay|oh|hey|hi|then|now|pls|please)\s+)*(?:(?:can|could|would|will)\s+(?:you|u)\b|help\s+me\b)/i;

/**
 * The clauses of a sentence that are not one-off requests, when one is ("first week of spring
 * semester, help me set up my calendar" gives "first week of spring semester"); null when the
 * sentence holds none, so it is read whole.
 */
export function withoutRequests(text: string): string[] | null {
  if (STANDING_RE.test(text) || REQUEST_RE.test(text)) return null;
  const clauses = text
    .split(/\s*[,;—–]\s*|\s+-\s+/)
    .map((x) => x.trim())
    .filter(Boolean);
  if (!clauses.some((x) => ONE_OFF_REQUEST_RE.test(x))) return null;
  return clauses.filter((x) => !ONE_OFF_REQUEST_RE.test(x));
}

/** Words that say something: not stopwords, not chat reactions, not vague nouns. */
export function contentWordCount(text: string): number {
  if (hasCjk(text)) {
    const cjk = text.replace(/[^\u3400-\u9fff]/g, '').replace(/[的了吗呢吧啊呀哦嗯是在我你他她它们这那就都也很还]/g, '');
    return Math.floor(cjk.length / 2) + contentTokens(text.replace(/[\u3400-\u9fff]/g, ' ')).length;
  }
  // A capitalised word inside the sentence is usually a name, and a name carries a fact on its own.
  const names = (text.slice(1).match(/(?<=\s)\p{Lu}[\p{L}'-]+/gu) ?? []).filter((w) => !/^I(?:'|$)/.test(w)).length;
  return contentTokens(text).filter((t) => !CHATTER_WORDS.has(t) && !GENERIC_NOUNS.has(t)).length + names;
}

export function isProcedure(a: Analysis): boolean {
  if (PROCEDURE_RE.test(a.text)) return true;
  const codeish = CODEISH_RE.test(a.text);
  if (!codeish) return false;
  return IMPERATIVE_START_RE.test(a.text) || YOU_MUST_RE.test(a.text);
}

/** The kind of memory a cleaned sentence yields, or null when it yields none. */
export function classify(a: Analysis): Verdict | null {
  const text = a.text;
  if (!text || isQuestion(text)) return null;
  // "I went hiking yesterday": a dated happening says more than its word count suggests.
  const cw = contentWordCount(text) + (a.pastFirstPerson && PAST_MARKER_RE.test(text) ? 1 : 0);
  if (cw < 1) return null;
  const cjk = hasCjk(text);
  // A profile cue carries the fact by itself ("I'm a nurse"); every other kind needs two content words.
  if (cw < 2) return PROFILE_RE.test(text) && !a.imperative ? grade('profile', text) : null;
  const vague = ((a.subjectHead !== null && VAGUE_SUBJECTS.has(a.subjectHead)) || a.deicticSubject) && !a.firstPerson;

  let kind: MemoryKind | null = null;
  // "Actually it's Memcached, not Redis": a correction states what holds, whatever "it" points to.
  if (CORRECTION_RE.test(text)) return grade('fact', text);
  if (REQUEST_RE.test(text) && !isQuestion(text)) return grade(DECISION_RE.test(text) ? 'decision' : 'preference', text);
  if (INSIGHT_RE.test(text) && text.length >= 30 && cw >= 3) kind = 'insight';
  else if (DECISION_RE.test(text)) kind = 'decision';
  else if (isProcedure(a)) kind = 'procedure';
  else if (PLAN_RE.test(text) && !vague) kind = 'plan';
  else if (PREFERENCE_RE.test(text) && (a.firstPerson || a.subjectHead === 'we' || a.droppedSubject !== null || cjk)) kind = 'preference';
  else if (PROFILE_RE.test(text)) kind = 'profile';
  else if (
    a.pastFirstPerson ||
    (cjk ? /我.*了|(?:昨天|上周|上个月|去年|前天|刚才)/.test(text) && /我/.test(text) : a.firstPerson && PAST_MARKER_RE.test(text))
  ) {
    kind = 'episode';
  } else if (isFact(a, cw, cjk)) kind = 'fact';
  if (!kind) return null;
  // "Check this pic I got": an instruction to the listener, whatever else it mentions.
  if (a.imperative && kind !== 'decision' && kind !== 'procedure' && kind !== 'plan') return null;
  // "Taking in kids in need - you're so kind": a subjectless remark that addresses the listener is about them.
  if (a.droppedSubject !== null && ADDRESSED_RE.test(text.replace(NOT_ADDRESSING_RE, '')) && kind === 'fact') return null;

  return grade(kind, text);
}

function grade(kind: MemoryKind, text: string): Verdict {
  const importance = Math.min(10, BASE_IMPORTANCE[kind] + (EMPHASIS_RE.test(text) ? 1 : 0));
  const confidence = Math.max(0.5, Math.min(0.9, BASE_CONFIDENCE[kind] - (HEDGE_RE.test(text) ? 0.2 : 0)));
  return { kind, importance, confidence: Math.round(confidence * 100) / 100 };
}

/** The text before the first clause break (", and", ", but", ";", " - "). */
function mainClause(text: string): string {
  return text.split(/,\s*(?:and|but|so|because)\s|;|\s[-–—]+\s|—/)[0] ?? text;
}

/** A declarative sentence with a verb and a subject that can stand alone. */
function isFact(a: Analysis, cw: number, cjk: boolean): boolean {
  if (cjk) return cw >= 3;
  if (!a.hasVerb || a.imperative || ADDRESSED_RE.test(mainClause(a.text).replace(NOT_ADDRESSING_RE, ''))) return false;
  const selfSubject = a.subjectHead === 'i' || a.subjectHead === 'we' || a.droppedSubject !== null;
  if (selfSubject) return cw >= 2;
  // "Family time matters to me": a named subject plus the speaker's stake is enough.
  if (a.firstPerson && cw >= 2 && a.subjectHead !== null && !a.deicticSubject && !VAGUE_SUBJECTS.has(a.subjectHead)) return true;
  if (cw < 3) return false;
  if (a.firstPerson || EXTRAPOSED_RE.test(a.text)) return true;
  if (a.subjectHead === null || a.deicticSubject) return false;
  return !VAGUE_SUBJECTS.has(a.subjectHead);
}
