import { ConfigError, checkProviderKeys, isEmbedded, type Config } from '../../../src/config.js';
import { liveOwner } from '../../../src/db/data-dir-lock.js';
import { createDeps } from '../../../src/deps.js';
import { MemloomError } from '../../../src/errors.js';
import type { Logger } from '../../../src/logger.js';
import { REEMBED_BATCH, reembed, type ReembedProgress } from '../../../src/reembed/index.js';
import { flagString, type ParsedArgs } from '../args.js';

const USAGE = 'usage: memloom reembed [--batch N] [--tenant T]';

export interface ReembedIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * `memloom reembed`: gives every chunk, memory and entity whose vector is of another model than
 * the configured embedder (EMBEDDINGS_PROVIDER / EMBEDDINGS_MODEL) a vector of the configured one,
 * in batches of `--batch` texts (one provider call, one transaction each); prints progress lines
 * on stderr and `{reembedded:{chunks,memories,entities},model,dims}` on stdout. Each batch commits:
 * after a kill, running it again continues with the rows still left.
 *
 * Opens the database directly (server mode: beside running workers; embedded mode: only while no
 * memloom runs on this MEMLOOM_HOME, whose scheduled `reembed` task does the same work in the
 * background, one batch per tick).
 */
export async function reembedCommand(
  config: Config,
  log: Logger,
  args: ParsedArgs,
  io: ReembedIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<void> {
  const batchFlag = flagString(args, 'batch');
  const batch = batchFlag === undefined ? REEMBED_BATCH : Number(batchFlag);
  if (!Number.isInteger(batch) || batch < 1 || batch > 5000) throw new ConfigError(`invalid --batch: expected an integer 1-5000\n${USAGE}`);
  checkProviderKeys(config, { embeddings: true, llm: false });
  const owner = isEmbedded(config) ? await liveOwner(config.MEMLOOM_HOME) : undefined;
  if (owner)
    throw new MemloomError(
      'DATABASE_IN_USE',
      `memloom pid ${owner.pid} runs on ${config.MEMLOOM_HOME} and owns its embedded database; its scheduled reembed task re-embeds one batch every REEMBED_INTERVAL_MS. Stop it to run memloom reembed at once.`,
      { kind: 'conflict', retryable: false, details: { pid: owner.pid } },
    );
  const deps = await createDeps(config, log);
  try {
    const { model, dimensions } = deps.providers.embeddings;
    const progress = (p: ReembedProgress) => io.stderr.write(`reembed ${p.table}: ${p.done}/${p.total} (tenant ${p.tenantId}, ${model})\n`);
    const result = await reembed(deps, { batch, tenantId: flagString(args, 'tenant'), onProgress: progress });
    io.stdout.write(`${JSON.stringify({ reembedded: result.reembedded, model, dims: dimensions })}\n`);
  } finally {
    await deps.close();
  }
}
