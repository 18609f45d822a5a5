/**
 * Chinese entity mentions through jieba's part-of-speech tags. The dictionary load takes a
 * moment, so a tagger is built on the first Chinese sentence and owned by the provider instance.
 */
import { Jieba } from '@node-rs/jieba';
import { dict } from '@node-rs/jieba/dict.js';
import type { Mention } from './entities.js';
import { TECHNOLOGIES, TOOLS } from './lexicon.js';

/** jieba (ICTCLAS) tags: nr person, ns place, nt organization, nz other proper noun, n noun. */
const TYPE_BY_TAG: Record<string, string> = {
  nr: 'person', nrfg: 'person', ns: 'place', nt: 'organization', nz: 'other', nrt: 'other',
};
/** Nouns too general to be an entity on their own. */
const GENERIC_ZH = new Set([
  '东西', '事情', '时候', '问题', '方面', '情况', '时间', '地方', '大家', '人们', '今天', '明天', '昨天', '现在', '以后',
  '之前', '一下', '这个', '那个', '什么', '朋友', '感觉', '样子', '办法', '部分', '事',
]);

export class ChineseTagger {
  private jieba: Jieba | undefined;

  private get instance(): Jieba {
    this.jieba ??= Jieba.withDict(dict);
    return this.jieba;
  }

  tag(text: string): Array<{ word: string; tag: string }> {
    return this.instance.tag(text, true);
  }

  /** Proper nouns by tag, Latin words that name technologies, and salient nouns (kept if repeated). */
  mentions(text: string): Mention[] {
    const out: Mention[] = [];
    for (const { word, tag } of this.tag(text)) {
      const w = word.trim();
      if (!w) continue;
      const type = TYPE_BY_TAG[tag];
      if (type && w.length >= 2) {
        out.push({ name: w, type });
      } else if (tag === 'eng') {
        const lower = w.toLowerCase();
        if (TOOLS.has(lower)) out.push({ name: w, type: 'tool' });
        else if (TECHNOLOGIES.has(lower)) out.push({ name: w, type: 'technology' });
        else if (/^\p{Lu}/u.test(w) && w.length >= 2) out.push({ name: w, type: 'other' });
      } else if ((tag === 'n' || tag === 'vn' || tag === 'nz') && w.length >= 2 && !GENERIC_ZH.has(w)) {
        out.push({ name: w, type: 'concept', weak: true });
      }
    }
    return out;
  }
}
