/**
 * Who said a message, however it arrives (docs/recall.md "Speakers"): `metadata.speaker`,
 * `metadata.name`, a `Name: ` prefix of the content ("Caroline: I went to …"), else the role.
 * Pure, no I/O.
 */

/**
 * Labels that open a line the way a name does but are not speakers ("Note: …", "TODO: …",
 * "Q: …"). Lower case.
 */
const NOT_SPEAKERS = new Set([
  'a',
  'q',
  'ps',
  'p.s',
  're',
  'fw',
  'fwd',
  'cc',
  'to',
  'from',
  'subject',
  'title',
  'date',
  'time',
  'note',
  'notes',
  'nb',
  'todo',
  'fixme',
  'tip',
  'hint',
  'update',
  'edit',
  'warning',
  'error',
  'info',
  'debug',
  'summary',
  'question',
  'answer',
  'example',
  'step',
  'reminder',
  'important',
  'status',
  'action',
  'decision',
  'result',
  'reason',
  'fix',
  'bug',
  'feature',
  'tldr',
  'tl;dr',
  'http',
  'https',
  // An assistant's acknowledgement labels ("Logged: Orion renews May 15", "Noted: …").
  'logged',
  'noted',
  'done',
  'added',
  'updated',
  'saved',
  'booked',
  'sent',
  'set',
  'confirmed',
  'scheduled',
  'fixed',
  'changed',
  'ok',
  'okay',
  'sure',
  'yes',
  'no',
  'thanks',
]);

/**
 * A name of one to three capitalised words (letters, apostrophes, hyphens, dots: "Mary-Jane",
 * "O'Neil", "Dr. Lee") at the start of the text, then a colon and a space, then text.
 */
const PREFIX_RE = /^\s*(\p{Lu}[\p{L}\p{M}'’.-]*(?: \p{Lu}[\p{L}\p{M}'’.-]*){0,2}):[ \t]+\S/u;

/** The speaker named by a `Name: ` prefix of a message's content, or undefined. */
export function speakerPrefix(content: string): string | undefined {
  const m = PREFIX_RE.exec(content);
  const name = m?.[1];
  if (!name || name.length > 40) return undefined;
  const lower = name.toLowerCase();
  if (NOT_SPEAKERS.has(lower) || NOT_SPEAKERS.has(lower.split(' ')[0] ?? '')) return undefined;
  return name;
}

/**
 * The metadata a message is stored with: when it names no speaker (`speaker` or `name`) and its
 * content opens with `Name: `, `speaker` is that name, so the key's speaker words, the recall's
 * speaker boost and extraction all see one speaker however it arrived. The content is kept as sent.
 * Other types (documents, notes, tool output), an assistant's messages and metadata that names
 * one are returned as given.
 */
export function withSpeaker(type: string, content: string, metadata: Record<string, unknown>, role?: string | null): Record<string, unknown> {
  if (type !== 'message' || typeof metadata.speaker === 'string' || typeof metadata.name === 'string') return metadata;
  // The assistant is one speaker already; its replies open with labels ("Logged: …"), not names.
  if (role?.trim().toLowerCase() === 'assistant') return metadata;
  const speaker = speakerPrefix(content);
  return speaker === undefined ? metadata : { ...metadata, speaker };
}
