import { Prisma } from '../generated/prisma/client';

const isKnown = (err: unknown, code: string): boolean => err instanceof Prisma.PrismaClientKnownRequestError && err.code === code;

/**
 * Prisma's "Unable to start a transaction in the given time" (P2028): every connection of the pool was
 * busy for longer than the transaction may wait. The request was fine and nothing was written; the
 * database is momentarily saturated, so the caller should retry.
 */
export function isDatabaseBusy(err: unknown): boolean {
  return isKnown(err, 'P2028');
}

/**
 * Prisma's "record to update or delete not found" (P2025): a write named a row by its id, and the row
 * was gone by the time the write ran. The caller had found it a moment before, so another request
 * deleted it meanwhile (two deletes of one row at once, an update racing a delete): the answer is the
 * row's "not found", not a fault of the service. Repositories let it through; the HTTP edge maps it.
 */
export function isRecordGone(err: unknown): boolean {
  return isKnown(err, 'P2025');
}
