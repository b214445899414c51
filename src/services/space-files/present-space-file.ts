import type { SpaceFileView } from '../../schemas/space-files';
import type { SpaceFileRow } from '../../store/space-files';

export function presentSpaceFile(row: SpaceFileRow): SpaceFileView {
  return {
    id: row.id,
    object: 'space.file',
    app_id: row.app_id,
    name: row.name,
    mime_type: row.mime_type,
    size_bytes: row.size_bytes,
    sha256: row.sha256,
    status: row.status,
    error: row.error,
    chunk_count: row.chunk_count,
    added_on: row.added_on.toISOString(),
    modified_on: row.modified_on.toISOString(),
  };
}
