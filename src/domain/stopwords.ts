/**
 * Stopword lists for lexical search (FTS, BM25, the hashing embedder). Words here carry almost no
 * topic: matching on them only adds noise. Entries are lower-case; English contraction fragments
 * (`don`, `t`, `ll`, …) are included because apostrophes split words.
 */

export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set([
  'a', 'about', 'above', 'after', 'again', 'against', 'all', 'also', 'am', 'an', 'and', 'any', 'are',
  'aren', 'as', 'at', 'be', 'because', 'been', 'before', 'being', 'below', 'between', 'both', 'but',
  'by', 'can', 'could', 'couldn', 'd', 'did', 'didn', 'do', 'does', 'doesn', 'doing', 'don', 'down',
  'during', 'each', 'either', 'else', 'etc', 'even', 'ever', 'every', 'few', 'for', 'from', 'further',
  'had', 'hadn', 'has', 'hasn', 'have', 'haven', 'having', 'he', 'her', 'here', 'hers', 'herself',
  'him', 'himself', 'his', 'how', 'however', 'i', 'if', 'in', 'into', 'is', 'isn', 'it', 'its',
  'itself', 'just', 'll', 'm', 'may', 'me', 'might', 'more', 'most', 'much', 'must', 'mustn', 'my',
  'myself', 'neither', 'no', 'nor', 'not', 'now', 'o', 'of', 'off', 'on', 'once', 'only', 'or',
  'other', 'ought', 'our', 'ours', 'ourselves', 'out', 'over', 'own', 'per', 'quite', 're', 'rather',
  's', 'same', 'shall', 'shan', 'she', 'should', 'shouldn', 'so', 'some', 'such', 't', 'than',
  'that', 'the', 'their', 'theirs', 'them', 'themselves', 'then', 'there', 'these', 'they', 'this',
  'those', 'though', 'through', 'thus', 'to', 'too', 'under', 'until', 'up', 'upon', 'us', 've',
  'very', 'via', 'was', 'wasn', 'we', 'were', 'weren', 'what', 'when', 'where', 'whether', 'which',
  'while', 'who', 'whom', 'whose', 'why', 'will', 'with', 'within', 'without', 'won', 'would',
  'wouldn', 'yet', 'you', 'your', 'yours', 'yourself', 'yourselves',
]);

/** Function words and pronouns; single characters and the jieba words built from them. */
export const CHINESE_STOPWORDS: ReadonlySet<string> = new Set([
  '的', '地', '得', '了', '着', '过', '是', '在', '我', '你', '您', '他', '她', '它', '们', '这', '那',
  '和', '与', '及', '或', '也', '都', '就', '又', '还', '吗', '呢', '吧', '啊', '呀', '哦', '嗯', '等',
  '之', '而', '把', '被', '给', '从', '对', '向', '于', '将', '让', '为', '以', '其', '个', '有', '很',
  '不', '没', '要', '会', '能', '可以', '我们', '你们', '他们', '她们', '它们', '咱们', '自己', '这个',
  '那个', '这些', '那些', '这样', '那样', '这里', '那里', '一个', '一些', '什么', '怎么', '为什么',
  '因为', '所以', '但是', '而且', '如果', '虽然', '然后', '还是', '或者', '以及', '已经', '就是',
  '还有', '并且', '的话', '一下',
]);

export function isStopword(word: string): boolean {
  return ENGLISH_STOPWORDS.has(word) || CHINESE_STOPWORDS.has(word);
}
