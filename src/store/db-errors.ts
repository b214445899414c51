import { Prisma } from '../generated/prisma/client';

/**
 * Prisma's "Unable to start a transaction in the given time" (P2028): every connection of the pool was
 * busy for longer than the transaction may wait. The request was fine and nothing was written; the
 * database is momentarily saturated, so the caller should retry.
 */
export function isDatabaseBusy(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2028';
}
