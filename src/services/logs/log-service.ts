import type { AuthContext } from '../../auth/auth-context';
import { ApiError } from '../../errors/api-error';
import { learnFromRating } from '../../routing/online/rating-lesson';
import type { Page } from '../../schemas/common';
import type { LogListQuery, LogView } from '../../schemas/logs';
import type { LogCursor, LogFeedback, LogRepository, LogRow } from '../../store/logs';
import { toPage } from '../../store/pagination';
import { requireVisibleSpace } from '../assistants/space-access';
import { presentLog } from './present-log';

export interface LogReadOptions {
  /** Loads the sub-requests into `children`. */
  children: boolean;
}

export class LogService {
  constructor(private readonly logs: LogRepository) {}

  async get(auth: AuthContext, id: string, options: LogReadOptions): Promise<LogView> {
    const row = await this.find(auth, id);
    return presentLog(row, options.children ? await this.logs.childrenOf(row.id) : null);
  }

  /** Top-level logs of the organization, newest first, unless `include_children` is set. */
  async list(auth: AuthContext, query: LogListQuery): Promise<Page<LogView>> {
    if (query.app_id) await requireVisibleSpace((appId) => this.logs.findSpace(appId), auth, query.app_id);
    const rows = await this.logs.list(
      {
        orgId: auth.orgId,
        appId: query.app_id,
        conversationId: query.conversation_id,
        goodAnswer: query.good_answer,
        includeChildren: query.include_children,
        createdAfter: query.created_after,
        createdBefore: query.created_before,
        model: query.model,
        status: query.status,
      },
      query,
    );
    return toPage(rows, query, (row) => presentLog(row));
  }

  /** The database's clock `ms` milliseconds ago: the end of what a follower may show (see `LogRepository.clockAgo`). */
  settledBefore(ms: number): Promise<Date> {
    return this.logs.clockAgo(ms);
  }

  /** Top-level logs after the cursor and added before `before`, oldest first: what a follower shows next. */
  async listAfter(auth: AuthContext, query: { app_id?: string; after: LogCursor; before: Date; limit: number }): Promise<LogView[]> {
    if (query.app_id) await requireVisibleSpace((appId) => this.logs.findSpace(appId), auth, query.app_id);
    const rows = await this.logs.listAfter({ orgId: auth.orgId, appId: query.app_id }, { after: query.after, before: query.before, limit: query.limit });
    return rows.map((row) => presentLog(row));
  }

  /**
   * Sets the rating; `feedback` left out keeps the current text. A rating of a log routed with
   * `smart_learn` also updates the Space's online routing feedback, in the same transaction.
   */
  async rate(auth: AuthContext, id: string, rating: { good_answer: boolean | null; feedback?: string }): Promise<LogView> {
    const row = await this.find(auth, id);
    await this.logs.setRating(row.id, rating, learnFromRating);
    return presentLog(await this.find(auth, id));
  }

  save(auth: AuthContext, id: string, isSavedForLater: boolean): Promise<LogView> {
    return this.change(auth, id, { is_saved_for_later: isSavedForLater });
  }

  private async change(auth: AuthContext, id: string, data: LogFeedback): Promise<LogView> {
    const row = await this.find(auth, id);
    await this.logs.setFeedback(row.id, data);
    return presentLog(await this.find(auth, id));
  }

  /** Another organization's log, and a level 3 one, answer exactly like an unknown id. */
  private async find(auth: AuthContext, id: string): Promise<LogRow> {
    const row = await this.logs.findShown(auth.orgId, id);
    if (!row) throw ApiError.notFound('Log', 'log_id');
    return row;
  }
}
