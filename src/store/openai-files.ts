import type { OpenAiFile, Prisma } from '../generated/prisma/client';
import type { OpenAiFileListQuery } from '../schemas/openai-files';
import type { Db } from './db';
import { unknownCursor } from './pagination';

export type OpenAiFileRow = OpenAiFile;
export type NewOpenAiFile = Omit<OpenAiFile, 'created_at' | 'expires_at'>;

/** OpenAI Files' rows. Every read is scoped by organization: another organization's id finds nothing. */
export class OpenAiFileRepository {
  constructor(private readonly db: Db) {}

  create(row: NewOpenAiFile): Promise<OpenAiFileRow> {
    return this.db.openAiFile.create({ data: row });
  }

  find(orgId: string, id: string): Promise<OpenAiFileRow | null> {
    return this.db.openAiFile.findFirst({ where: { id, org_id: orgId } });
  }

  /** `limit + 1` rows in `order` of (created_at, id), after the cursor file. */
  async list(orgId: string, query: OpenAiFileListQuery): Promise<OpenAiFileRow[]> {
    const and: Prisma.OpenAiFileWhereInput[] = [{ org_id: orgId }];
    if (query.purpose) and.push({ purpose: query.purpose });
    if (query.after) {
      const cursor = await this.find(orgId, query.after);
      if (!cursor) throw unknownCursor();
      const beyond = query.order === 'desc' ? 'lt' : 'gt';
      and.push({ OR: [{ created_at: { [beyond]: cursor.created_at } }, { created_at: cursor.created_at, id: { [beyond]: cursor.id } }] });
    }
    return this.db.openAiFile.findMany({ where: { AND: and }, orderBy: [{ created_at: query.order }, { id: query.order }], take: query.limit + 1 });
  }

  /** Removes the row; null when there was no such file in the organization. */
  async delete(orgId: string, id: string): Promise<OpenAiFileRow | null> {
    const found = await this.find(orgId, id);
    if (!found) return null;
    const { count } = await this.db.openAiFile.deleteMany({ where: { id, org_id: orgId } });
    return count === 1 ? found : null;
  }
}
