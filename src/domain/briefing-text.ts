/**
 * How a memory reads in the working memory: note style, as a person would write it about the user
 * ("Uses Neovim as their editor, please give them vim keybindings" rather than "The user uses
 * Neovim as the user's editor, please give the user vim keybindings"). A display form only: the
 * stored text keeps "the user" subjects, which recall's keys and slot reading (slots.ts) rely on.
 */

const SUBJECT = /^(?:the user|user)\s+/i;
/** A repeated subject after a clause break: ", and the user mostly writes" → ", and mostly writes". */
const REPEATED_SUBJECT = /(,|;|\band|\bbut)\s+the user\s+(?=(?:\w+ly\s+)?(?:is|was|has|had|will|would|can|does|did|[a-z]+s)\b)/gi;

/** The user as the subject of a sentence is dropped; as an object or possessive it becomes "them" / "their". */
export function displayText(content: string): string {
  let s = content.replace(/\s+/g, ' ').trim();
  if (!SUBJECT.test(s)) return s;
  s = s.replace(SUBJECT, '');
  // "The user is a backend engineer" → "A backend engineer"; "The user is allergic" → "Allergic".
  s = s.replace(/^is\s+/i, '');
  s = s.replace(REPEATED_SUBJECT, '$1 ');
  s = s.replace(/\bthe user's\b/gi, 'their').replace(/\bthe user\b/gi, 'them');
  return s.replace(/^\p{Ll}/u, (c) => c.toUpperCase());
}

const ROLE_WORDS =
  /\b(?:lead|manager|engineer|developer|designer|architect|director|head|cto|ceo|cfo|coo|vp|founder|co-founder|owner|reviewer|maintainer|colleague|coworker|co-worker|teammate|boss|mentor|intern|contractor|consultant|client|customer|recruiter|pm|product manager|analyst|scientist|researcher|admin|sre|doctor|dentist|therapist|teacher|coach|partner|wife|husband|girlfriend|boyfriend|friend|sister|brother|mother|father|mom|dad|son|daughter|neighbour|neighbor|landlord)\b/i;
/** A capitalised name of one to three words opening the sentence, then what they are. */
const NAMED_PERSON =
  /^(?!(?:The|We|I|Our|My|Their|This|That|It|He|She|They|User|Everyone|Nobody)\b)\p{Lu}[\p{L}'-]+(?:\s+\p{Lu}[\p{L}'-]+){0,2}\s+(?:is|was|will be|has been|'s)\s+(?:now\s+|still\s+)?(?:our|my|the|a|an|their|his|her)\b/u;

/** A memory about a person and their role ("Priya Raman is our tech lead and reviews …"). */
export function isAboutPerson(content: string): boolean {
  const s = content.trim();
  return NAMED_PERSON.test(s) && ROLE_WORDS.test(s);
}

/** Who the user is: "The user is …", "The user works at …", "The user's name is …". */
export function isAboutUserIdentity(content: string): boolean {
  return /^(?:the user|user)(?:'s (?:name|job|role|title|background)\b| (?:is|was|works|worked|lives|lived|grew up|studies|studied|has been|was born|comes from|moved)\b)/i.test(
    content.trim(),
  );
}

/** A stated habit or taste of the user ("The user uses Neovim", "The user prefers short answers"). */
export function isUserPreference(content: string): boolean {
  return /^(?:the user|user) (?:\w+ly )?(?:uses|prefers|likes|loves|enjoys|hates|dislikes|wants|avoids|favou?rs|needs|insists)\b/i.test(content.trim());
}
