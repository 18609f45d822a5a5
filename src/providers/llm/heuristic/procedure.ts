/**
 * Multi-line procedures: a run of list items that are mostly instructions, optionally introduced
 * by a lead-in line ("To deploy:"), or a lead-in followed by a code block. One memory per run.
 */
import { IMPERATIVE_VERBS } from './lexicon.js';
import type { Segment } from './sentences.js';

export interface ProcedureRun {
  content: string;
  /** Indexes into the segment list that the run used up. */
  used: number[];
}

const LEAD_RE = /:\s*$|^(?:to|how to|steps?|instructions|procedure|setup|install(?:ation)?)\b/i;

export function isInstruction(text: string): boolean {
  const first =
    text
      .trim()
      .replace(/^(?:then|next|finally|now|also|please|always|never|just)\s+/i, '')
      .split(/[\s,:]+/)[0]
      ?.toLowerCase() ?? '';
  const t = text.trim();
  return IMPERATIVE_VERBS.has(first.replace(/[`'"]/g, '')) || /^(?:make sure|don't|do not|go to|cd|click|press|open)\b/i.test(t) || /^[`$]/.test(t);
}

export function findProcedures(segments: readonly Segment[]): ProcedureRun[] {
  const runs: ProcedureRun[] = [];
  let i = 0;
  while (i < segments.length) {
    const seg = segments[i] as Segment;
    if (seg.kind === 'item') {
      let j = i;
      while (j < segments.length && segments[j]?.kind === 'item') j++;
      const items = segments.slice(i, j);
      const instructions = items.filter((s) => isInstruction(s.text)).length;
      if (items.length >= 2 && instructions * 2 >= items.length) {
        const lead = i > 0 && segments[i - 1]?.kind === 'sentence' && LEAD_RE.test(segments[i - 1]?.text ?? '') ? i - 1 : null;
        const steps = items.map((s, k) => `${k + 1}. ${s.text.replace(/[.;]+$/, '')}`).join('; ');
        const head = lead !== null ? `${(segments[lead] as Segment).text.replace(/:\s*$/, '')}: ` : 'Steps: ';
        runs.push({ content: `${head}${steps}.`, used: [...(lead !== null ? [lead] : []), ...range(i, j)] });
      }
      i = j;
      continue;
    }
    if (seg.kind === 'code' && isShell(seg) && i > 0 && segments[i - 1]?.kind === 'sentence' && /:\s*$/.test(segments[i - 1]?.text ?? '')) {
      const lead = (segments[i - 1] as Segment).text.replace(/:\s*$/, '');
      const lines = seg.text
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .slice(0, 5);
      if (lines.length > 0 && lines.join(' ').length <= 400) {
        runs.push({ content: `${lead}: ${lines.map((l) => `\`${l}\``).join('; ')}.`, used: [i - 1, i] });
      }
    }
    i++;
  }
  return runs;
}

/** A code block of commands, not of data or source: its fence says so, or its first line does. */
function isShell(seg: Segment): boolean {
  if (/^(?:sh|bash|zsh|shell|console|terminal|powershell|ps1|cmd|bat)$/.test(seg.lang ?? '')) return true;
  if (seg.lang) return false;
  return /^(?:\$\s|(?:npm|npx|pnpm|yarn|git|docker|kubectl|curl|pip|cargo|make|cd|node|python3?|go|brew|apt(?:-get)?|sudo)\s)/.test(seg.text);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, k) => from + k);
}
