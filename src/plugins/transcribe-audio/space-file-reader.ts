/** One stored Space file, as the transcription plugin needs it. */
export interface SpaceFile {
  name: string;
  mimeType: string;
  bytes: Buffer;
}

/**
 * Reads a Space's stored file by id (implemented over the database elsewhere). `appId` is the Space
 * whose data the request may read (`ctx.space.dataSpaceId`), so a file id of another Space is not found.
 */
export interface SpaceFileReader {
  read(appId: string, fileId: string): Promise<SpaceFile | null>;
}
