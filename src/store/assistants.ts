import { Prisma, type Assistant, type AssistantVersion, type Visibility } from '../generated/prisma/client';
import type { PageQuery } from '../schemas/common';
import type { Db } from './db';
import { afterCursor, NEWEST_FIRST, unknownCursor } from './pagination';

/** What decides who may see a Space: its organization. */
export interface SpaceRef {
  id: string;
  org_id: string;
}

export function findSpaceRef(db: Db, appId: string): Promise<SpaceRef | null> {
  return db.app.findUnique({ where: { id: appId }, select: { id: true, org_id: true } });
}

/** An assistant with its current (highest-numbered) version. */
export type AssistantRow = Assistant & { versions: AssistantVersion[] };

const CURRENT_VERSION = { versions: { orderBy: { version: 'desc' as const }, take: 1 } };

export interface AssistantFields {
  name: string;
  avatar: string | null;
  description: string | null;
  visibility: Visibility;
  definition_visibility: Visibility;
}

export interface NewAssistant extends AssistantFields {
  app_id: string;
  slug: string;
  added_by: string;
  /** Configuration of version 1; null for none. */
  config: Prisma.InputJsonValue | null;
}

/** Which assistants of a Space a listing covers: the non-private ones and the caller's own. */
export interface AssistantViewer {
  idpId: string;
}

const isUniqueViolation = (err: unknown): boolean => err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';

const jsonOrDbNull = (config: Prisma.InputJsonValue | null) => config ?? Prisma.DbNull;

/** Attempts at numbering a new version when concurrent updates race for the same number. */
const VERSION_ATTEMPTS = 5;

function visibleTo(viewer: AssistantViewer): Prisma.AssistantWhereInput {
  return { OR: [{ visibility: { not: 'private' } }, { added_by: viewer.idpId }] };
}

export class AssistantRepository {
  constructor(private readonly db: Db) {}

  findSpace(appId: string): Promise<SpaceRef | null> {
    return findSpaceRef(this.db, appId);
  }

  /** Slugs of the Space that start with `prefix`. */
  async slugsStartingWith(appId: string, prefix: string): Promise<Set<string>> {
    const rows = await this.db.assistant.findMany({ where: { app_id: appId, slug: { startsWith: prefix } }, select: { slug: true } });
    return new Set(rows.map((row) => row.slug));
  }

  /** Stores the assistant and its version 1 together; null when the slug was taken meanwhile. */
  async insert(input: NewAssistant): Promise<AssistantRow | null> {
    const { config, ...assistant } = input;
    try {
      return await this.db.assistant.create({
        data: { ...assistant, versions: { create: { version: 1, assistant_config: jsonOrDbNull(config) } } },
        include: CURRENT_VERSION,
      });
    } catch (err) {
      if (isUniqueViolation(err)) return null;
      throw err;
    }
  }

  findInSpace(appId: string, id: string, viewer: AssistantViewer): Promise<AssistantRow | null> {
    return this.db.assistant.findFirst({ where: { AND: [{ id, app_id: appId }, visibleTo(viewer)] }, include: CURRENT_VERSION });
  }

  async list(appId: string, viewer: AssistantViewer, query: PageQuery): Promise<AssistantRow[]> {
    const where: Prisma.AssistantWhereInput = { AND: [{ app_id: appId }, visibleTo(viewer)] };
    if (query.after) {
      const cursor = await this.db.assistant.findFirst({ where: { AND: [where, { id: query.after }] }, select: { id: true, added_on: true } });
      if (!cursor) throw unknownCursor();
      where.AND = [...(where.AND as Prisma.AssistantWhereInput[]), afterCursor(cursor)];
    }
    return this.db.assistant.findMany({ where, orderBy: NEWEST_FIRST, take: query.limit + 1, include: CURRENT_VERSION });
  }

  /**
   * Changes the fields and, when `config` is given, adds the next version with it, in one
   * transaction. Two updates racing for the same version number make one retry with the next.
   */
  async update(id: string, fields: Partial<AssistantFields>, config?: { value: Prisma.InputJsonValue | null }): Promise<AssistantRow> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.db.$transaction(async (tx) => {
          if (config) {
            const latest = await tx.assistantVersion.aggregate({ where: { assistant_id: id }, _max: { version: true } });
            const version = (latest._max.version ?? 0) + 1;
            await tx.assistantVersion.create({ data: { assistant_id: id, version, assistant_config: jsonOrDbNull(config.value) } });
          }
          // Touched even without field changes, so modified_on moves with a new version.
          return tx.assistant.update({ where: { id }, data: { ...fields, modified_on: new Date() }, include: CURRENT_VERSION });
        });
      } catch (err) {
        if (!isUniqueViolation(err) || attempt >= VERSION_ATTEMPTS) throw err;
      }
    }
  }

  /** The version, if it belongs to that assistant. */
  findVersion(assistantId: string, versionId: string): Promise<AssistantVersion | null> {
    return this.db.assistantVersion.findFirst({ where: { id: versionId, assistant_id: assistantId } });
  }

  /** A model of this name the Space may route to: public catalog, or custom to its organization or to it. */
  async isModelNameAvailable(name: string, space: SpaceRef): Promise<boolean> {
    const found = await this.db.model.findFirst({
      where: {
        model: name,
        globally_disabled: false,
        OR: [{ app_id: null, org_id: null, is_public: true }, { org_id: space.org_id, app_id: null }, { app_id: space.id }],
      },
      select: { id: true },
    });
    return found !== null;
  }
}
