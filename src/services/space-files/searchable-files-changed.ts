import type { SpaceVersions } from '../../cache/space-versions';
import type { SpaceFileRepository } from '../../store/space-files';

export interface SearchableFilesDeps {
  files: Pick<SpaceFileRepository, 'spacesReadingFilesOf'>;
  versions: Pick<SpaceVersions, 'bump'>;
}

/**
 * A Space's searchable files changed (a file became ready, failed, or was deleted): bumps the stamps of
 * the Space and of the sandboxes that search its files, so that the next request of each reads again
 * whether there is anything to search (a completion asks once per Space snapshot, see space-memo).
 */
export async function searchableFilesChanged({ files, versions }: SearchableFilesDeps, appId: string): Promise<void> {
  await versions.bump(await files.spacesReadingFilesOf(appId));
}
