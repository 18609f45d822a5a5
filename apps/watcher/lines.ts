/** One complete line of an events file. */
export interface FileLine {
  /** 1-based line number in the file. */
  number: number;
  text: string;
  /** False when the bytes are not valid UTF-8 (the line is dead-lettered, never stored mangled). */
  utf8: boolean;
  /** Byte position just after this line's \n, relative to the buffer it was read from. */
  end: number;
}

const strict = new TextDecoder('utf-8', { fatal: true });

/**
 * Splits a buffer read from `startOffset` into complete lines (ending in \n). Returns the lines
 * and how many bytes they used; an incomplete last line is left for a later read, so a line
 * written in several pieces is only taken once its \n arrives. Handles a UTF-8 BOM at file start
 * and CRLF; blank lines are counted (line numbers stay true) but not returned.
 */
export function completeLines(buf: Buffer, startOffset: number, startLine: number): { lines: FileLine[]; consumed: number; lastLine: number } {
  const lines: FileLine[] = [];
  let pos = 0;
  let lineNo = startLine;
  for (;;) {
    const nl = buf.indexOf(0x0a, pos);
    if (nl === -1) break;
    let start = pos;
    if (startOffset + start === 0 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) start += 3;
    let end = nl;
    if (end > start && buf[end - 1] === 0x0d) end--;
    lineNo++;
    let text: string;
    let utf8 = true;
    try {
      text = strict.decode(buf.subarray(start, end));
    } catch {
      text = buf.toString('utf8', start, end);
      utf8 = false;
    }
    if (text.trim() !== '') lines.push({ number: lineNo, text, utf8, end: nl + 1 });
    pos = nl + 1;
  }
  return { lines, consumed: pos, lastLine: lineNo };
}
