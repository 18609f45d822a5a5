/**
 * The cheap gate of pipeline stage 1 (docs/architecture.md): acknowledgements, empty tool chatter and markers
 * (session_end, src/domain/routing.ts) are skipped, everything else is kept with a queue priority by event type
 * (1 = most urgent).
 */
import type { TriageVerdict } from '../types.js';
import { isMarker } from '../../../domain/routing.js';

/** Whole-message acknowledgements; a message is an ack when it is only these, in any order. */
const ACK_PHRASES = [
  'ok',
  'okay',
  'okey',
  'k',
  'kk',
  'sure',
  'yes',
  'yep',
  'yeah',
  'yup',
  'no',
  'nope',
  'lol',
  'lmao',
  'rofl',
  'cool',
  'nice',
  'great',
  'perfect',
  'awesome',
  'alright',
  'all right',
  'fine',
  'noted',
  'understood',
  'roger',
  'roger that',
  'got it',
  'gotcha',
  'will do',
  'sounds good',
  'sounds great',
  'makes sense',
  'thanks',
  'thank you',
  'thank you so much',
  'thank you very much',
  'thanks a lot',
  'thanks so much',
  'thx',
  'ty',
  'tysm',
  'np',
  'no problem',
  'no worries',
  "you're welcome",
  'youre welcome',
  'cheers',
  'wow',
  'nice one',
  'good',
  'good job',
  'great job',
  'well done',
  'done',
  'bye',
  'see you',
  'ttyl',
  'hi',
  'hello',
  'hey',
  'haha',
  'hahaha',
  'hehe',
  'mhm',
  'hmm',
  'ah',
  'oh',
  'i see',
  'right',
  'exactly',
  'agreed',
  'indeed',
  'true',
  'same',
  'me too',
  'sgtm',
  'lgtm',
  'ack',
  'please',
  'pls',
  '好的',
  '好',
  '好滴',
  '谢谢',
  '多谢',
  '谢谢你',
  '收到',
  '嗯',
  '嗯嗯',
  '哈哈',
  '哈哈哈',
  '明白',
  '明白了',
  '了解',
  '知道了',
  '行',
  '可以',
  '没问题',
  '好吧',
  '对',
  '是的',
  '辛苦了',
  '👍',
].sort((a, b) => b.length - a.length);

/** Tool output that says nothing: no memory can come from it. */
const EMPTY_TOOL_OUTPUT =
  /^(?:\{\s*\}|\[\s*\]|null|undefined|none|nil|true|false|ok|okay|done|success|succeeded|successful|completed?|no output|no results?|empty|""|''|0|200|204|ack)$/i;

const PRIORITY_BY_TYPE: Record<string, number> = {
  decision: 2,
  document: 2,
  message: 5,
  tool_result: 8,
  tool_call: 8,
  tool: 8,
  observation: 6,
};

export function heuristicTriage(content: string, type: string): TriageVerdict {
  const text = content.trim();
  const priority = PRIORITY_BY_TYPE[type] ?? 5;
  if (isMarker(type)) return { keep: false, reason: 'marker', priority: 10 };
  if (!text || !/[\p{L}\p{N}\p{Extended_Pictographic}]/u.test(text)) return { keep: false, reason: 'empty', priority: 10 };
  if (/^tool/.test(type) && EMPTY_TOOL_OUTPUT.test(text.replace(/[.!]+$/, ''))) return { keep: false, reason: 'empty', priority: 10 };
  if (isAck(text)) return { keep: false, reason: 'ack', priority: 10 };
  return { keep: true, priority };
}

/** True when the text is only acknowledgement phrases, emoji and punctuation. */
export function isAck(text: string): boolean {
  if (text.length > 60) return false;
  const bare = text
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    // biome-ignore lint/suspicious/noMisleadingCharacterClass: each code point is removed on its own, joiners and modifiers included
    .replace(/[\p{Extended_Pictographic}\u{FE0F}\u{200D}\u{1F3FB}-\u{1F3FF}]/gu, ' ')
    .replace(/[^\p{L}\p{N}'\s]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!bare) return /[\p{Extended_Pictographic}]/u.test(text); // "👍" alone is an ack; "..." is not
  let i = 0;
  while (i < bare.length) {
    if (bare[i] === ' ') {
      i++;
      continue;
    }
    const phrase = ACK_PHRASES.find((p) => bare.startsWith(p, i) && isBoundary(bare, i + p.length, p));
    if (!phrase) return false;
    i += phrase.length;
  }
  return true;
}

/** Latin phrases must end at a word boundary ("ok" is not the start of "okra"); Chinese needs none. */
function isBoundary(s: string, end: number, phrase: string): boolean {
  if (/[\u3400-\u9fff]$/.test(phrase)) return true;
  return end >= s.length || s[end] === ' ';
}
