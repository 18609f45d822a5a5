import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';
import type { Db } from './pool.js';

export type { PrismaClient };
export type PrismaTx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

/** Prisma shares the application pool (and so its role) with raw SQL. */
export function createPrisma(db: Db): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg(db) });
}

/** Prisma's counterpart of withTenant: an interactive transaction with app.tenant_id set locally. */
export async function prismaWithTenant<T>(prisma: PrismaClient, tenantId: string, fn: (tx: PrismaTx) => Promise<T>): Promise<T> {
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT set_config('app.tenant_id', ${tenantId}, true)`;
    return fn(tx);
  });
}
