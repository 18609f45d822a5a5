/** Kept apart from briefing.ts (which loads the tokenizer) so the agent hook can name the file cheaply. */
/**
 * File name of a user's working memory under MEMLOOM_HOME/working-memory: letters, digits, `.`,
 * `_` and `-` only, never hidden or empty; a name that had to change gets a short hash of the
 * original so two users never share a file.
 */
export function briefingFileName(userId: string, hash: (s: string) => string): string {
  if (userId === '') return '_no-user.md';
  const safe = userId
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^[.]+/, '_')
    .slice(0, 100);
  return safe === userId ? `${safe}.md` : `${safe}-${hash(userId).slice(0, 8)}.md`;
}
