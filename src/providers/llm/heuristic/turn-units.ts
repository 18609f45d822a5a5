/**
 * Units for what a turn says that no sentence rule keeps: an attached photo's caption, and the
 * reply that only makes sense beside the question it answers ("It was Matt Patterson, he is so
 * talented!" after "Who performed?"). The sentence rules (classify.ts) drop a statement whose
 * subject is vague ("it", "they", "this game") or that has no verb ("Pepperoni of course!"),
 * which is right for a sentence alone and wrong for a reply: on the LoCoMo dev file 61 of 465 gold
 * turns yielded no unit, 40 of them turns `chunks` found in its top 10 and `memories` could not
 * (docs/performance-history.md, 2026-12-08).
 */
import type { ExtractMessage } from '../types.js';
import { isChitChat } from './chatter.js';
import { contentWordCount, isQuestion, withoutRequests } from './classify.js';
import { analyse } from './analyse.js';
import { asksOnly } from '../../../domain/query-intent.js';
import { cleanSentence, dropTagQuestion, selfLabel, toThirdPerson, type SelfLabel } from './rewrite.js';
import { hasCjk, splitSegments } from './sentences.js';

/**
 * A bracketed note of an attachment with its caption: "[shares a photo: a dog on a beach]",
 * "[image: receipt from the hardware store]", "[sent a screenshot: the error dialog]".
 */
const ATTACHMENT_RE =
  /\[\s*((?:[\p{L}'-]+\s+){0,3}(?:an?\s+|the\s+)?(?:photo|photograph|image|picture|pic|screenshot|video|gif|drawing|attachment)s?)\s*:\s*([^\]\n]{3,300})\]/giu;

/** The turn's text without its attachment notes, and the captions of those notes. */
export function attachmentCaptions(content: string): { text: string; captions: string[] } {
  const captions: string[] = [];
  const text = content.replace(ATTACHMENT_RE, (_whole, _note: string, caption: string) => {
    captions.push(caption.trim().replace(/[.\s]+$/, ''));
    return ' ';
  });
  return { text: captions.length > 0 ? text.replace(/[ \t]+/g, ' ').trim() : content, captions };
}

/**
 * "Melanie shared a photo of a cup with a dog face on it." The caption often says what it is ("a
 * photo of …"); one that does not is joined after "a photo:".
 */
export function captionMemory(who: string, caption: string): string {
  const c = caption.replace(/^(?:this is\s+)?/i, '');
  const described = /^(?:an?|the)\s+(?:photo(?:graph|graphy)?|image|picture|pic|screenshot|video|gif|drawing)\s+(?:of|showing|with)\b/i.test(c);
  return `${who} shared ${described ? c.replace(/^(?:an?|the)\s+photograph(?:y)?\b/i, 'a photo') : `a photo: ${c}`}.`;
}

/** Statements of a turn's sentences that the sentence rules left: not a question, not small talk, two content words. */
function statements(content: string, participants: readonly string[]): string[] {
  const out: string[] = [];
  for (const seg of splitSegments(content)) {
    if (seg.kind === 'code') continue;
    const whole = dropTagQuestion(cleanSentence(seg.text, participants));
    // "help me set up my calendar" is no statement; "first week of spring semester" beside it is (classify.ts withoutRequests).
    const clean = withoutRequests(whole)?.join(', ') ?? whole;
    if (!clean || isQuestion(clean) || asksOnly(clean) || /:$/.test(clean) || isChitChat(clean) || contentWordCount(clean) < 2) continue;
    out.push(clean);
  }
  return out;
}

/** The last question of a turn ("… Anything new? What did you cook?" -> "What did you cook?"), or null. */
function lastQuestion(content: string, participants: readonly string[]): string | null {
  const asked = splitSegments(attachmentCaptions(content).text)
    .map((s) => cleanSentence(s.text, participants))
    .filter((s) => isQuestion(s));
  return asked[asked.length - 1] ?? null;
}

/**
 * One unit for a turn whose sentences made none (the caller checks) and that answers the question
 * of the turn before it, another speaker's: its statements in the third person after that
 * question and its asker, so the unit carries what "it", "they" or a bare "Pepperoni" refer to:
 * `Melanie, asked by Caroline "What concert was it?": It was Matt Patterson, he is so talented.`
 * Sources: both turns. Null when no question comes before (a reply without its question is the
 * filler the sentence rules keep out: "That cup is so cute."), when the turn states nothing (it
 * only asks, requests, thanks or reacts: "can you set a reminder two days before"), or when it is
 * Chinese text (the rules above are English).
 */
export function replyUnit(
  msg: ExtractMessage,
  before: ExtractMessage | undefined,
  self: SelfLabel,
  participants: readonly string[],
): { content: string; sources: number[] } | null {
  if (!before || ((before.speaker?.trim() ?? '') === (msg.speaker?.trim() ?? '') && (before.role ?? '') === (msg.role ?? ''))) return null;
  const question = lastQuestion(before.content, participants);
  const text = attachmentCaptions(msg.content).text;
  if (question === null || hasCjk(text)) return null;
  const said = statements(text, participants).map((s) => toThirdPerson(s, analyse(s), self));
  if (said.length === 0) return null;
  const asker = before.speaker?.trim() || selfLabel(undefined, before.role).mid;
  const body = said.map((s) => (/[.!?]$/.test(s) ? s : `${s}.`)).join(' ');
  return { content: `${self.start}, asked by ${asker} "${question}": ${body}`, sources: [before.index, msg.index] };
}
