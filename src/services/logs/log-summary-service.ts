import type { AuthContext } from '../../auth/auth-context';
import type { LogSummaryQuery, LogSummaryView } from '../../schemas/log-summary';
import type { LogSummaryRepository, SummaryRow } from '../../store/log-summary';
import { requireVisibleSpace, type FindSpace } from '../assistants/space-access';

/** USD sums are rounded to a billionth of a dollar: float addition leaves noise below that. */
const round = (dollars: number) => Math.round(dollars * 1e9) / 1e9;

function presentBucket(row: SummaryRow): LogSummaryView['data'][number] {
  return { ...row, cost: round(row.cost), savings: round(row.savings) };
}

/** Requests, errors, tokens, cost and savings of the organization's requests, bucketed for charts. */
export class LogSummaryService {
  constructor(
    private readonly summaries: LogSummaryRepository,
    private readonly findSpace: FindSpace,
  ) {}

  async summarize(auth: AuthContext, query: LogSummaryQuery): Promise<LogSummaryView> {
    if (query.app_id) await requireVisibleSpace(this.findSpace, auth, query.app_id);
    const rows = await this.summaries.summarize({
      orgId: auth.orgId,
      appId: query.app_id,
      groupBy: query.group_by,
      createdAfter: query.created_after,
      createdBefore: query.created_before,
      model: query.model,
      status: query.status,
    });
    return {
      object: 'log.summary',
      group_by: query.group_by,
      created_after: query.created_after?.toISOString() ?? null,
      created_before: query.created_before?.toISOString() ?? null,
      data: rows.map(presentBucket),
    };
  }
}
