import type { Prisma, Prompt } from '../generated/prisma/client';
import type { PageQuery } from '../schemas/common';
import type { PromptStatus } from '../schemas/prompts';
import type { ReviewStamps } from '../schemas/prompt-state';
import type { Db } from './db';
import { afterCursor, NEWEST_FIRST, unknownCursor } from './pagination';

export type PromptRow = Prompt;

export interface PromptContent {
  prompt: string;
  title: string;
  description: string;
  tokens: number;
}

/** Which prompts a listing covers. */
export type PromptScope = { kind: 'organization'; orgId: string } | { kind: 'public' } | { kind: 'review' };

const STATUS_FILTERS: Record<PromptStatus, Prisma.PromptWhereInput> = {
  draft: { published_on: null },
  pending: { published_on: { not: null }, reviewed_on: null },
  approved: { approved_on: { not: null } },
  declined: { reviewed_on: { not: null }, approved_on: null },
};

function scopeFilter(scope: PromptScope): Prisma.PromptWhereInput {
  switch (scope.kind) {
    case 'organization':
      return { org_id: scope.orgId };
    case 'public':
      return STATUS_FILTERS.approved;
    case 'review':
      return {};
  }
}

export class PromptRepository {
  constructor(private readonly db: Db) {}

  create(data: PromptContent & { org_id: string; added_by: string; is_public: boolean } & Partial<ReviewStamps>): Promise<PromptRow> {
    return this.db.prompt.create({ data });
  }

  findById(id: string): Promise<PromptRow | null> {
    return this.db.prompt.findUnique({ where: { id } });
  }

  update(id: string, data: Partial<PromptContent & ReviewStamps>): Promise<PromptRow> {
    return this.db.prompt.update({ where: { id }, data });
  }

  /** Moves the stamps only if they are still what the caller read, so two reviewers cannot both win. */
  async transition(id: string, expected: ReviewStamps, next: ReviewStamps): Promise<PromptRow | null> {
    const { count } = await this.db.prompt.updateMany({
      where: { id, published_on: expected.published_on, reviewed_on: expected.reviewed_on },
      data: next,
    });
    return count === 1 ? this.findById(id) : null;
  }

  async list(scope: PromptScope, query: PageQuery & { status?: PromptStatus }): Promise<PromptRow[]> {
    const where: Prisma.PromptWhereInput = { AND: [scopeFilter(scope), query.status ? STATUS_FILTERS[query.status] : {}] };
    if (query.after) {
      const cursor = await this.db.prompt.findFirst({ where: { AND: [where, { id: query.after }] }, select: { id: true, added_on: true } });
      if (!cursor) throw unknownCursor();
      where.AND = [...(where.AND as Prisma.PromptWhereInput[]), afterCursor(cursor)];
    }
    return this.db.prompt.findMany({ where, orderBy: NEWEST_FIRST, take: query.limit + 1 });
  }
}
