import { thirdPersonVerb } from './rewrite.js';

/**
 * What a conversation says that is no memory: small talk, and an assistant's own side of it. Chunks
 * keep every turn as evidence; these rules only keep such sentences out of memory units (and so
 * out of the working memory).
 */

/** An assistant's acknowledgement before what it confirms: "Got it:", "Noted —", "Understood,". */
export const ACK_LEAD =
  /^(?:got it|gotcha|noted|understood|ok(?:ay)?|sure(?: thing)?|will do|roger(?: that)?|copy that|confirmed|done|great|perfect|makes sense|sounds good|all right|alright|good to know|thanks for (?:the update|letting me know)|thank you)\b[\s,.:;!—–-]*/i;

/** A sentence about the assistant itself ("I'll write the runner", "Let me check"). */
const ASSISTANT_SELF = /\b(?:i|i'm|i'll|i've|i'd|me|my|mine|myself|let me|let's)\b/i;
/** Advice to the user ("you could…", "you should…"), not a statement of what holds. */
const ADVICE = /\byou(?:'d|'ll)?\s+(?:could|should|might|may|can|need|must|want|would|will)\b|\byou'd\b|\byou'll\b/i;

/**
 * An assistant turn's sentence as a memory, or null: only what it confirms after an
 * acknowledgement ("Noted — staging now deploys to Fly.io"), and only when that is about the
 * user's world, not about the assistant ("I'll use …") or advice to the user ("you can …").
 * Explanations and general knowledge are evidence (chunks), not the user's memory.
 */
export function assistantStatement(sentence: string): string | null {
  const s = sentence.trim();
  const m = ACK_LEAD.exec(s);
  if (!m || m[0].length === 0) return null;
  const rest = s.slice(m[0].length).trim();
  if (rest.length === 0 || ASSISTANT_SELF.test(rest) || ADVICE.test(rest)) return null;
  return aboutTheUser(rest).replace(/^\p{Ll}/u, (c) => c.toUpperCase());
}

/** "you drive an Outback now" → "the user drives an Outback now": the assistant's "you" is the user. */
function aboutTheUser(text: string): string {
  return text
    .replace(/\byou're\b|\byou are\b/gi, 'the user is')
    .replace(/\byou've\b|\byou have\b/gi, 'the user has')
    .replace(/\byou were\b/gi, 'the user was')
    .replace(
      /\byou\s+(?:(now|still|also|usually)\s+)?([a-z]+)\b/gi,
      (_m, adv: string | undefined, verb: string) => `the user ${adv ? `${adv} ` : ''}${thirdPersonVerb(verb)}`,
    )
    .replace(/\byour\b/gi, "the user's")
    .replace(/\byou\b/gi, 'the user');
}

const CHITCHAT: RegExp[] = [
  // Greetings and farewells.
  /^(?:good\s+)?(?:morning|afternoon|evening|night|day)\b[\s!.,]*(?:all|everyone|team|folks)?[\s!.,]*$/i,
  /\b(?:brb|be right back|gotta (?:run|go|jump)|talk (?:to you )?(?:later|soon|tomorrow)|ttyl|see you|catch you later|speak soon|have a (?:good|great|nice|lovely|wonderful) (?:day|one|weekend|evening|night|week|time))\b/i,
  // Being busy right now.
  /\b(?:have|got|'ve got) (?:a|another) (?:call|meeting|sync|standup) in (?:\d+|a few|a couple of|one|two|five|ten|fifteen|thirty) (?:min|mins|minutes|secs?|seconds)\b/i,
  /^(?:one sec(?:ond)?|hang on|give me a (?:sec|second|minute)|back in (?:\d+|a few|five|ten) (?:min|mins|minutes))\b/i,
  // Thanks and reactions.
  /^(?:thanks|thank you|cheers|thx|ty|much appreciated|appreciate it)\b(?:[\s,!.]+(?:so much|a lot|again|a ton|man|mate))?[\s,!.]*(?:that|this|it)?\s*(?:helped|helps|worked|works|was (?:helpful|great|perfect|useful))?[\s!.]*$/i,
  /^(?:that|this|it) (?:helped|helps|worked|works|was (?:really )?(?:helpful|great|perfect|useful|it))(?: a lot| perfectly| great)?[\s!.]*$/i,
];
/** Weather talk about the moment ("raining all morning here"). */
const WEATHER =
  /\b(?:weather|rain(?:ing|y|ed)?|sunny|snow(?:ing|y|ed)?|cloudy|humid|freezing|heat ?wave|drizzl\w*|forecast|thunderstorm|windy|foggy|hail(?:ing)?)\b/i;
const RIGHT_NOW = /\b(?:today|tonight|this (?:morning|afternoon|evening|week)|all (?:day|morning|night|week)|outside|right now|here|so far)\b/i;

/** Small talk: greetings, farewells, thanks, being busy, today's weather. */
export function isChitChat(sentence: string): boolean {
  const s = sentence.trim();
  if (CHITCHAT.some((re) => re.test(s))) return true;
  return WEATHER.test(s) && RIGHT_NOW.test(s);
}

/** The assistant's own side as a memory text: "Got it, I will …", "The assistant will use …". */
const ASSISTANT_SUBJECT = /\b(?:the assistant|assistant)(?:'s)?\b|^(?:i|i'll|i will|i'm going to|let me)\b/i;

/**
 * Text that is an assistant's acknowledgement or promise rather than something about the user's
 * world. The extractor keeps these out of memories (assistantStatement); this also keeps any
 * stored before (or written by another extractor) out of the working memory.
 */
export function isAssistantAcknowledgement(text: string): boolean {
  const s = text.trim();
  if (ASSISTANT_SUBJECT.test(s)) return true;
  const m = ACK_LEAD.exec(s);
  return m !== null && m[0].length > 0 && (s.length === m[0].length || ASSISTANT_SELF.test(s.slice(m[0].length)));
}
