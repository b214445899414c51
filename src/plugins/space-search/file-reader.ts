import type { Db } from '../../store/db';
import { SpaceFileRepository } from '../../store/space-files';

export interface SpaceFileContent {
  name: string;
  mimeType: string;
  bytes: Buffer;
}

/**
 * Reads a stored Space file by id, for plugins that take one (transcribe-audio). Pass the Space whose
 * data the request reads (`ctx.space.dataSpaceId`): a file of any other Space is null, like an unknown id.
 */
export interface SpaceFileReader {
  read(appId: string, fileId: string): Promise<SpaceFileContent | null>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createSpaceFileReader({ db }: { db: Db }): SpaceFileReader {
  const files = new SpaceFileRepository(db);
  return {
    // A string that is not a uuid names no file (and must not reach PostgreSQL's uuid parser).
    read: (appId, fileId) => (UUID.test(appId) && UUID.test(fileId) ? files.readBytes(appId, fileId) : Promise.resolve(null)),
  };
}
