#!/usr/bin/env node
// Generates the Prisma client when prisma/schema.prisma changed since the last generation.
// `prisma generate` wants to download a native schema engine it does not need; pointing
// PRISMA_SCHEMA_ENGINE_BINARY at any existing file makes it generate from WASM, offline.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

export function ensurePrismaClient() {
  const schema = readFileSync(path.join(root, 'prisma/schema.prisma'));
  const hash = createHash('sha256').update(schema).digest('hex');
  const stamp = path.join(root, 'src/generated/prisma/.schema-hash');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) return;
  execFileSync(process.execPath, [path.join(root, 'node_modules/prisma/build/index.js'), 'generate'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? '/bin/false', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
  });
  writeFileSync(stamp, hash);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) ensurePrismaClient();
