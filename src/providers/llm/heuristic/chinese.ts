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
  nr: 'person',
  nrfg: 'person',
  ns: 'place',
  nt: 'organization',
  nz: 'other',
  nrt: 'other',
};
/** Common Chinese surnames (single and compound). */
const SURNAMES = new Set(
  (
    '王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝'.split(
      '',
    ) as string[]
  ).concat(['欧阳', '司马', '上官', '诸葛', '东方', '皇甫', '令狐', '慕容', '尉迟', '长孙']),
);

/** Nouns too general to be an entity on their own. */
const GENERIC_ZH = new Set([
  '东西',
  '事情',
  '时候',
  '问题',
  '方面',
  '情况',
  '时间',
  '地方',
  '大家',
  '人们',
  '今天',
  '明天',
  '昨天',
  '现在',
  '以后',
  '之前',
  '一下',
  '这个',
  '那个',
  '什么',
  '朋友',
  '感觉',
  '样子',
  '办法',
  '部分',
  '事',
]);

export class ChineseTagger {
  private jieba: Jieba | undefined;

  private get instance(): Jieba {
    this.jieba ??= Jieba.withDict(dict);
    return this.jieba;
  }

  /** Dictionary-only tagging: HMM guesses new words well but calls phrases like 喝咖啡 a name. */
  tag(text: string): Array<{ word: string; tag: string }> {
    return this.instance.tag(text, false);
  }

  /** Proper nouns by tag, Latin words that name technologies, and salient nouns (kept if repeated). */
  mentions(text: string): Mention[] {
    const out: Mention[] = [];
    for (const { word, tag } of mergeNouns(this.tag(text))) {
      const w = word.trim();
      if (!w) continue;
      // The dictionary tags some phrases nr (喝咖啡); a person's name starts with a surname.
      const type = (tag === 'nr' || tag === 'nrfg') && !SURNAMES.has(w[0] ?? '') && !SURNAMES.has(w.slice(0, 2)) ? 'other' : TYPE_BY_TAG[tag];
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

/** Adjacent common nouns form one term: 软件 + 工程师 -> 软件工程师. */
function mergeNouns(tagged: Array<{ word: string; tag: string }>): Array<{ word: string; tag: string }> {
  const out: Array<{ word: string; tag: string }> = [];
  for (const t of tagged) {
    const last = out[out.length - 1];
    if (last && last.tag === 'n' && t.tag === 'n') last.word += t.word;
    else out.push({ ...t });
  }
  return out;
}
