/**
 * Splits a message into segments: sentences (English and Chinese), list items, and fenced code
 * blocks. List items stay whole so procedure detection can see a run of steps; code blocks stay
 * whole so they are never read as prose.
 */

export type SegmentKind = 'sentence' | 'item' | 'code';

export interface Segment {
  text: string;
  kind: SegmentKind;
  /** For code: the fence's language tag ("sh", "json"), '' when none. */
  lang?: string;
}

const CJK_END = new Set(['。', '！', '？', '；']);
const LATIN_END = new Set(['.', '!', '?', '…']);
const CLOSERS = new Set(['"', "'", ')', ']', '”', '’', '」', '』', '）']);
const ABBREVIATIONS = new Set('mr mrs ms dr prof sr jr st vs etc e.g i.e eg ie approx dept est fig jan feb aug sep sept oct nov dec u.s'.split(' '));
const LIST_MARKER = /^\s*(?:\d{1,2}[.)]|[-*•·]|step\s+\d+[:.)]?)\s+/i;
const FENCE = /```([^\n]*)\n([\s\S]*?)(?:```|$)/g;
/** Markdown structure that is not prose: headings, table rows, rules. */
const NOT_PROSE = /^(?:#{1,6}\s|\|.*\|$|[-=*_]{3,}$|>\s*$)/;

/** Normalises typographic apostrophes so every rule can match plain `'`. */
export function normaliseText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/[’‘]/g, "'").replace(/[“”]/g, '"');
}

export function isListItem(line: string): boolean {
  return LIST_MARKER.test(line);
}

export function stripListMarker(line: string): string {
  return line.replace(LIST_MARKER, '').trim();
}

export function splitSegments(content: string): Segment[] {
  const text = normaliseText(content);
  const out: Segment[] = [];
  let last = 0;
  for (const m of text.matchAll(FENCE)) {
    pushProse(text.slice(last, m.index), out);
    const code = (m[2] ?? '').trim();
    if (code) out.push({ text: code, kind: 'code', lang: (m[1] ?? '').trim().toLowerCase() });
    last = m.index + m[0].length;
  }
  pushProse(text.slice(last), out);
  return out;
}

function pushProse(text: string, out: Segment[]): void {
  for (const line of joinWrappedLines(text)) {
    if (NOT_PROSE.test(line)) continue;
    if (isListItem(line)) {
      const item = stripListMarker(line);
      if (item) out.push({ text: item, kind: 'item' });
      continue;
    }
    for (const s of splitSentences(line)) out.push({ text: s, kind: 'sentence' });
  }
}

/**
 * Hard-wrapped paragraphs ("... extraction of memory\nunits, entities ...") become one line: a
 * line that does not end a sentence, followed by one that starts in lower case, continues it.
 */
function joinWrappedLines(text: string): string[] {
  const lines: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || looksLikeCode(line)) continue;
    const prev = lines[lines.length - 1];
    if (prev !== undefined && /^[a-z(]/.test(line) && !/[.!?。！？:;]$/.test(prev) && !NOT_PROSE.test(prev)) {
      lines[lines.length - 1] = `${prev} ${line}`;
    } else {
      lines.push(line);
    }
  }
  return lines;
}

/** Source code pasted as text: comment markers, statement endings, or dense punctuation. */
export function looksLikeCode(line: string): boolean {
  if (/^(?:\/\/|\/\*|\*\/?|#!|[{}\])]|<\/?[a-z][\w-]*[\s>])/.test(line) || /(?:[{([]|=>)\s*$/.test(line)) return true;
  const statement = /^(?:import|export|const|let|var|return|type|use|using|package|require)\b/i.test(line);
  if ((/;\s*$/.test(line) && (/[=(){}]/.test(line) || statement)) || /^[\w.$[\]]+\s*=\s*\S/.test(line)) return true;
  const symbols = line.replace(/[^{}()[\];:=<>&|]/g, '').length;
  return line.length >= 12 && symbols / line.length > 0.08;
}

/** Sentence boundaries inside one line: `。！？；` always end a sentence; `.!?` only before whitespace. */
export function splitSentences(line: string): string[] {
  const out: string[] = [];
  let start = 0;
  const push = (end: number): void => {
    const s = line.slice(start, end).trim();
    if (s) out.push(s);
    start = end;
  };
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    const cjk = CJK_END.has(ch);
    if (!cjk && !LATIN_END.has(ch)) continue;
    let j = i + 1;
    while (j < line.length && (CJK_END.has(line[j] as string) || LATIN_END.has(line[j] as string) || CLOSERS.has(line[j] as string))) j++;
    if (!cjk) {
      // "src/a.ts", "3.5", "v2.3.1": a dot inside a token is not a boundary.
      if (j < line.length && !/\s/.test(line[j] as string)) {
        i = j - 1;
        continue;
      }
      // Only the last word matters: a bounded slice keeps a line of many dots linear.
      if (ch === '.' && j === i + 1 && endsWithAbbreviation(line.slice(Math.max(start, i - 64), i))) continue;
    }
    push(j);
    i = j - 1;
  }
  push(line.length);
  return out;
}

function endsWithAbbreviation(before: string): boolean {
  const word = /(\S+)$/.exec(before)?.[1]?.toLowerCase();
  if (!word) return false;
  if (/^[a-z]$/i.test(word)) return true; // an initial: "J. K. Rowling"
  return ABBREVIATIONS.has(word) || /^(?:[a-z]\.)+[a-z]$/i.test(word);
}

export function hasCjk(text: string): boolean {
  return /[\u3400-\u9fff]/.test(text);
}
