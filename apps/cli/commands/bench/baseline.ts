import { stemmer } from 'stemmer';
import { ENGLISH_STOPWORDS } from '../../../../src/domain/stopwords.js';

/**
 * The plain Okapi BM25 baseline of the LoCoMo benchmark (issue 18): one document per turn,
 * "speaker: text [photo caption]", Porter stems, English stopwords, k1 = 1.2, b = 0.75, IDF over
 * the conversation's own turns. About fifty lines on purpose: it is what a user would write in an
 * afternoon, and memloom's recall must beat it.
 */
export class PlainBm25 {
  readonly #docs: Array<{ id: string; tf: Map<string, number>; len: number }> = [];
  readonly #df = new Map<string, number>();
  #avgdl = 0;

  constructor(docs: Array<{ id: string; text: string }>) {
    for (const d of docs) {
      const tokens = analyse(d.text);
      const tf = new Map<string, number>();
      for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const t of tf.keys()) this.#df.set(t, (this.#df.get(t) ?? 0) + 1);
      this.#docs.push({ id: d.id, tf, len: tokens.length });
    }
    this.#avgdl = this.#docs.reduce((a, d) => a + d.len, 0) / Math.max(1, this.#docs.length);
  }

  search(query: string, k: number): string[] {
    const n = this.#docs.length;
    const terms = [...new Set(analyse(query))];
    const idf = new Map(terms.map((t) => [t, Math.log(1 + (n - (this.#df.get(t) ?? 0) + 0.5) / ((this.#df.get(t) ?? 0) + 0.5))]));
    return this.#docs
      .map((d) => {
        let s = 0;
        for (const t of terms) {
          const f = d.tf.get(t) ?? 0;
          if (f > 0) s += ((idf.get(t) as number) * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * d.len) / this.#avgdl));
        }
        return { id: d.id, s };
      })
      .filter((d) => d.s > 0)
      .sort((a, b) => b.s - a.s)
      .slice(0, k)
      .map((d) => d.id);
  }
}

function analyse(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => !ENGLISH_STOPWORDS.has(w)).map((w) => stemmer(w));
}
