import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenTablesLoaded } from '../src/domain/tokens.js';
import { startWorkers, type RunningWorkers } from '../src/queue/runner.js';
import { CATALOG } from '../workers/catalog.js';
import { startTestMemloom, type TestMemloom } from './support/memloom.js';

// Its own file: vitest gives each file a fresh module graph, so nothing here has counted tokens yet.
describe('what a worker process loads at start (Stage.load)', () => {
  let m: TestMemloom;
  const running: RunningWorkers[] = [];
  beforeAll(async () => {
    m = await startTestMemloom();
  });
  afterAll(async () => {
    await Promise.all(running.map((w) => w.close()));
    await m?.close();
  });

  it('loads the token tables only in a process that runs the chunk stage, before its first job', () => {
    expect(tokenTablesLoaded()).toBe(false);
    running.push(startWorkers(m.deps, CATALOG, ['triage', 'embed']));
    expect(tokenTablesLoaded()).toBe(false);
    running.push(startWorkers(m.deps, CATALOG, ['chunk']));
    expect(tokenTablesLoaded()).toBe(true);
  });
});
