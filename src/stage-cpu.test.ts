import { describe, expect, it } from 'vitest';
import { StageCpu } from './stage-cpu.js';

/** Burns CPU on this thread until process.cpuUsage() has advanced by `ms`. */
function burn(ms: number): void {
  const start = process.cpuUsage();
  for (;;) {
    const d = process.cpuUsage(start);
    if ((d.user + d.system) / 1000 >= ms) return;
  }
}

describe('StageCpu', () => {
  it('charges a part to its stage, not to the job around it, and the parts add up to the process CPU', async () => {
    const cpu = new StageCpu();
    const before = cpu.snapshot();
    const sum = (s: Record<string, number>) => Object.values(s).reduce((a, b) => a + b, 0);
    await cpu.job('chunk', async () => {
      burn(5);
      await cpu.part('write', async () => burn(40));
    });
    const after = cpu.snapshot();
    expect(after['chunk.write'] ?? 0).toBeGreaterThanOrEqual(0.04);
    expect(after['chunk.handle'] ?? 0).toBeGreaterThanOrEqual(0.005);
    expect(after['chunk.handle'] ?? 0).toBeLessThan(after['chunk.write'] ?? 0);
    // Everything between two snapshots is charged somewhere (settle shares all of it).
    expect(sum(after) - sum(before)).toBeGreaterThanOrEqual(0.045);
  });
});
