import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const TAIL_BYTES = 4 * 1024 * 1024;

interface Line {
  type?: string;
  uuid?: string;
  message?: { role?: string; content?: unknown };
}

/**
 * The assistant's reply to the latest prompt in a Claude Code transcript (JSON lines): the text
 * blocks of every assistant line after the last user line that is a prompt (not a tool result),
 * with the uuid of the last of them as a stable key. Reads only the file's tail; a transcript
 * that cannot be read or parsed gives undefined.
 */
export function lastAssistantReply(file: string): { uuid: string; text: string } | undefined {
  let text: string;
  try {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      const start = Math.max(0, size - TAIL_BYTES);
      const buf = Buffer.alloc(size - start);
      readSync(fd, buf, 0, buf.length, start);
      text = buf.toString('utf8');
      if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const lines: Line[] = [];
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    try {
      lines.push(JSON.parse(raw) as Line);
    } catch {
      // a line being written right now, or not JSON: skip it
    }
  }
  let from = 0;
  lines.forEach((l, i) => {
    if (l.type === 'user' && isPrompt(l.message?.content)) from = i + 1;
  });
  const replies = lines.slice(from).filter((l) => l.type === 'assistant');
  const texts = replies.flatMap((l) => textBlocks(l.message?.content)).filter((t) => t.trim() !== '');
  const last = replies[replies.length - 1];
  if (texts.length === 0 || !last?.uuid) return undefined;
  return { uuid: last.uuid, text: texts.join('\n\n') };
}

function isPrompt(content: unknown): boolean {
  if (typeof content === 'string') return true;
  return Array.isArray(content) && content.some((b) => (b as { type?: string }).type === 'text');
}

function textBlocks(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.filter((b) => (b as { type?: string }).type === 'text').map((b) => String((b as { text?: unknown }).text ?? ''));
}
