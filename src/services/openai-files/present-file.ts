import type { OpenAiFileView } from '../../schemas/openai-files';
import type { OpenAiFileRow } from '../../store/openai-files';

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** A stored file as OpenAI's file object. */
export function presentFile(row: OpenAiFileRow): OpenAiFileView {
  return {
    id: row.id,
    object: 'file',
    bytes: row.bytes,
    created_at: seconds(row.created_at),
    expires_at: row.expires_at ? seconds(row.expires_at) : null,
    filename: row.filename,
    purpose: row.purpose as OpenAiFileView['purpose'],
    status: 'processed',
    status_details: null,
  };
}
