/** pgvector text format: '[1,2,3]'. Shortest round-trip float formatting keeps vectors exact. */
export function toVectorSql(v: readonly number[]): string {
  return `[${v.join(',')}]`;
}

export function fromVectorSql(s: string): number[] {
  return s.slice(1, -1).split(',').map(Number);
}
