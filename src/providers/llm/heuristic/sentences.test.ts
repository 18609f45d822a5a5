import { describe, expect, it } from 'vitest';
import { splitSegments, splitSentences } from './sentences.js';

describe('splitSentences', () => {
  it('splits English prose on sentence punctuation followed by space', () => {
    expect(splitSentences('I went hiking. It rained! Did you go?')).toEqual(['I went hiking.', 'It rained!', 'Did you go?']);
  });

  it('keeps dots inside paths, versions, decimals and abbreviations', () => {
    const parts = splitSentences('Edit src/a.ts and bump to v2.3.1 (about 3.5 MB), e.g. the lock file. Then ship it.');
    expect(parts).toEqual(['Edit src/a.ts and bump to v2.3.1 (about 3.5 MB), e.g. the lock file.', 'Then ship it.']);
    expect(splitSentences('Dr. Smith met Mr. Jones.')).toHaveLength(1);
  });

  it('splits Chinese on 。！？ without needing spaces', () => {
    expect(splitSentences('我们决定使用PostgreSQL。你觉得呢？太好了！')).toEqual(['我们决定使用PostgreSQL。', '你觉得呢？', '太好了！']);
  });

  it('never loses non-space text', () => {
    const line = 'One. Two!  Three? 四。五！ six';
    expect(splitSentences(line).join('').replace(/\s/g, '')).toBe(line.replace(/\s/g, ''));
  });
});

describe('splitSegments', () => {
  it('keeps list items and fenced code blocks whole', () => {
    const segs = splitSegments('To deploy:\n1. Run `npm run build`.\n2. Copy dist/ to the server.\n```sh\nnpm ci\nnpm run build\n```\nDone.');
    expect(segs.map((s) => s.kind)).toEqual(['sentence', 'item', 'item', 'code', 'sentence']);
    expect(segs[1]?.text).toBe('Run `npm run build`.');
    expect(segs[3]?.text).toBe('npm ci\nnpm run build');
  });

  it('joins hard-wrapped lines and skips markdown structure and pasted code', () => {
    const doc = '# Notes\n\nWorkers turn events into memory: triage, chunking,\nembedding and extraction.\n| a | b |\nconst x = f(1);\nDone.';
    expect(splitSegments(doc).map((s) => s.text)).toEqual(['Workers turn events into memory: triage, chunking, embedding and extraction.', 'Done.']);
  });

  it('normalises typographic apostrophes', () => {
    expect(splitSegments('I’m here.')[0]?.text).toBe("I'm here.");
  });
});
