/** A file the HTTP edge received and wrote to a temporary file, as the Files service takes it. */
export interface UploadedTempFile {
  /** The client's file name, without any directory part. */
  name: string;
  /** Where the bytes were written; the caller removes it. */
  path: string;
  bytes: number;
  /** The text fields sent beside the file (OpenAI's SDK sends `purpose` after `file`). */
  fields: Record<string, unknown>;
}
