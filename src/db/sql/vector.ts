import { MemloomError } from '../../errors.js';

/**
 * The vectors one model makes: a comparison reads only rows whose embedding_model and
 * embedding_dims are these (a vector of another model is not comparable, even at equal dimensions).
 */
export interface VectorSpace {
  model: string;
  dims: number;
}

/** pgvector text format: '[1,2,3]'. Shortest round-trip float formatting keeps vectors exact. */
export function toVectorSql(v: readonly number[]): string {
  return `[${v.join(',')}]`;
}

export function fromVectorSql(s: string): number[] {
  return s.slice(1, -1).split(',').map(Number);
}

/**
 * A vector as a query parameter in pgvector's binary format (what `vector_recv` reads: int16
 * dimensions, int16 unused, then float4 big-endian each). node-postgres sends a Buffer parameter
 * in binary, so the server never parses decimal text: PGlite's WASM build took 0.3–1 ms to parse a
 * 384-dimension vector from text (its strtof goes through software long doubles), paid for every
 * chunk, memory, entity and cache row and every neighbour lookup. Use as `$n::vector`.
 */
export function vectorParam(v: readonly number[]): Buffer {
  const buf = Buffer.allocUnsafe(4 + 4 * v.length);
  buf.writeInt16BE(v.length, 0);
  buf.writeInt16BE(0, 2);
  for (let i = 0; i < v.length; i++) buf.writeFloatBE(v[i] as number, 4 + 4 * i);
  return buf;
}

/** Parameters per statement for vectorList (PostgreSQL allows 65,535 in all). */
export const MAX_VECTORS_PER_STATEMENT = 5_000;

/**
 * Many vectors for one statement: appends one binary parameter per vector to `params` and returns
 * `ARRAY[$a::vector, $b::vector, …]`, to unnest (WITH ORDINALITY counts from 1) beside the rows
 * it belongs to. Callers slice their rows to MAX_VECTORS_PER_STATEMENT.
 */
export function vectorList(params: unknown[], vectors: ReadonlyArray<readonly number[]>): string {
  // A caller's bug, which a retry would repeat.
  if (vectors.length > MAX_VECTORS_PER_STATEMENT)
    throw new MemloomError('STATEMENT_TOO_LARGE', `vectorList: ${vectors.length} vectors in one statement (at most ${MAX_VECTORS_PER_STATEMENT})`, {
      kind: 'internal',
      retryable: false,
    });
  const refs = vectors.map((v) => {
    params.push(vectorParam(v));
    return `$${params.length}::vector`;
  });
  return `ARRAY[${refs.join(', ')}]::vector[]`;
}
