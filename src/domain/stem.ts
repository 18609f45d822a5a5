/**
 * A light English stemmer (the hashing embedder's; full-text keys use Porter's, src/domain/text.ts): Porter's step 1 (plurals, -ed, -ing) plus -ly and a final silent e,
 * so that "decide", "decides", "decided" and "deciding" share the stem "decid". It is deliberately
 * small and predictable; callers keep the surface word beside the stem, so an odd stem only adds a
 * token, it never loses one. Only lower-case ASCII words of 3+ letters are touched.
 */

function isConsonant(w: string, i: number): boolean {
  const c = w[i];
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return false;
  if (c === 'y') return i === 0 || !isConsonant(w, i - 1);
  return true;
}

/** Porter's measure m: the number of vowel-consonant sequences in [C](VC)^m[V]. */
function measure(w: string): number {
  let m = 0;
  let i = 0;
  while (i < w.length && isConsonant(w, i)) i++;
  while (i < w.length) {
    while (i < w.length && !isConsonant(w, i)) i++;
    if (i >= w.length) break;
    m++;
    while (i < w.length && isConsonant(w, i)) i++;
  }
  return m;
}

function hasVowel(w: string): boolean {
  for (let i = 0; i < w.length; i++) if (!isConsonant(w, i)) return true;
  return false;
}

/** Ends consonant-vowel-consonant, the last not w, x or y ("hop", not "show"). */
function endsCvc(w: string): boolean {
  const n = w.length;
  if (n < 3) return false;
  const last = w[n - 1];
  return isConsonant(w, n - 3) && !isConsonant(w, n - 2) && isConsonant(w, n - 1) && last !== 'w' && last !== 'x' && last !== 'y';
}

function endsDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && isConsonant(w, n - 1);
}

function stripPlural(w: string): string {
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('ies')) return w.length > 4 ? `${w.slice(0, -3)}y` : w.slice(0, -1);
  if (/(?:x|z|ch|sh)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) return w.slice(0, -1);
  return w;
}

function stripEdIng(w: string): string {
  if (w.endsWith('eed')) return w;
  const suffix = w.endsWith('ing') ? 'ing' : w.endsWith('ed') ? 'ed' : '';
  if (suffix === '') return w;
  const base = w.slice(0, -suffix.length);
  if (base.length < 2 || !hasVowel(base)) return w;
  if (/(?:at|bl|iz)$/.test(base)) return `${base}e`;
  if (endsDoubleConsonant(base) && !/[lsz]$/.test(base)) return base.slice(0, -1);
  if (measure(base) === 1 && endsCvc(base)) return `${base}e`;
  return base;
}

function stripLy(w: string): string {
  if (w.length >= 7 && w.endsWith('ily')) return `${w.slice(0, -3)}y`; // happily -> happy
  if (w.length >= 7 && w.endsWith('ly')) return w.slice(0, -2); // quickly -> quick, not family
  return w;
}

/** Porter's step 1c: "study", "studies" and "studied" all end in "studi". */
function yToI(w: string): string {
  return w.endsWith('y') && w.length > 2 && hasVowel(w.slice(0, -1)) ? `${w.slice(0, -1)}i` : w;
}

/** Porter's step 5a: drop a silent final e ("decide" -> "decid", but "make" stays). */
function stripFinalE(w: string): string {
  if (!w.endsWith('e') || w.endsWith('ee')) return w;
  const base = w.slice(0, -1);
  const m = measure(base);
  return m > 1 || (m === 1 && !endsCvc(base)) ? base : w;
}

export function stem(word: string): string {
  if (word.length < 3 || !/^[a-z]+$/.test(word)) return word;
  let w = word.length > 3 ? stripPlural(word) : word;
  w = stripEdIng(w);
  w = stripLy(w);
  w = yToI(w);
  return stripFinalE(w);
}
