import { useMemo, useState } from 'preact/hooks';
import type { LogSummaryView } from '../../../src/schemas/log-summary';
import { api } from '../api';
import { costAndSavingsChart, daysBetween, stackedCostChart } from '../charts';
import { ChartView } from '../components/chart-view';
import { SpaceSelect, useSpaces } from '../components/space-select';
import { LoadState } from '../components/status';
import { isoDay, usd } from '../format';
import { useApi } from '../use-api';

const DEFAULT_DAYS = 30;

/**
 * A bucket's model. The API's null means no model was called: the request was refused before routing
 * chose one (no model could take it, a policy or a limit refused it), or, rarely, its model was deleted since.
 */
const NO_MODEL = 'refused before routing';
const NO_MODEL_HINT = 'No model was called: the request was refused before routing (or its model has been deleted since)';
const modelLabel = (model: string | null | undefined): string => model ?? NO_MODEL;

function defaultRange(): { from: string; until: string } {
  const until = new Date();
  until.setUTCDate(until.getUTCDate() + 1);
  const from = new Date(until);
  from.setUTCDate(from.getUTCDate() - DEFAULT_DAYS);
  return { from: isoDay(from), until: isoDay(until) };
}

function useSummary(groupBy: string, appId: string, range: { from: string; until: string }) {
  return useApi(
    () =>
      api<LogSummaryView>('GET', '/v1/logs/summary', { query: { group_by: groupBy, app_id: appId, created_after: range.from, created_before: range.until } }),
    [groupBy, appId, range.from, range.until],
  );
}

/** Cost and savings over time, per Space and per model, from `GET /v1/logs/summary`. */
export function CostsPage() {
  const [appId, setAppId] = useState('');
  const [range, setRange] = useState(defaultRange);
  const spaces = useSpaces();
  const spaceNames = new Map((spaces.data?.data ?? []).map((space) => [space.id, space.name]));
  const days = useMemo(() => daysBetween(range.from, range.until), [range.from, range.until]);
  const perDay = useSummary('day', appId, range);
  const perModel = useSummary('day,model', appId, range);
  const perSpace = useSummary('day,app', appId, range);
  const totals = useSummary('model', appId, range);

  const costChart = useMemo(() => perDay.data && costAndSavingsChart(days, perDay.data.data), [days, perDay.data]);
  const modelChart = useMemo(() => perModel.data && stackedCostChart(days, perModel.data.data, (bucket) => modelLabel(bucket.model)), [days, perModel.data]);
  const spaceChart = useMemo(
    () =>
      perSpace.data &&
      stackedCostChart(days, perSpace.data.data, (bucket) => (bucket.app_id ? (spaceNames.get(bucket.app_id) ?? bucket.app_id.slice(0, 8)) : 'deleted Space')),
    [days, perSpace.data, spaces.data],
  );

  return (
    <section>
      <h1>Cost &amp; savings</h1>
      <form class="filters" aria-label="Chart range" onSubmit={(event) => event.preventDefault()}>
        <SpaceSelect value={appId} onChange={setAppId} spaces={spaces.data?.data ?? []} />
        <label>
          From
          <input
            type="date"
            name="from"
            value={range.from}
            onChange={(event) => event.currentTarget.value && setRange({ ...range, from: event.currentTarget.value })}
          />
        </label>
        <label>
          Until (exclusive)
          <input
            type="date"
            name="until"
            value={range.until}
            onChange={(event) => event.currentTarget.value && setRange({ ...range, until: event.currentTarget.value })}
          />
        </label>
      </form>
      <h2>Cost and savings per day</h2>
      <LoadState state={perDay} />
      {costChart && <ChartView config={costChart} label="Cost and savings per day" />}
      <h2>Cost per day, by model</h2>
      <LoadState state={perModel} />
      {modelChart && <ChartView config={modelChart} label="Cost per day by model" />}
      <h2>Cost per day, by Space</h2>
      <LoadState state={perSpace} />
      {spaceChart && <ChartView config={spaceChart} label="Cost per day by Space" />}
      <h2>Totals by model</h2>
      <LoadState state={totals} />
      {totals.data && (
        <div class="overflow-auto">
          <table data-totals>
            <thead>
              <tr>
                <th>Model</th>
                <th class="number">Requests</th>
                <th class="number">Errors</th>
                <th class="number">Tokens</th>
                <th class="number">Cost</th>
                <th class="number">Savings</th>
              </tr>
            </thead>
            <tbody>
              {totals.data.data.map((bucket) => (
                <tr key={modelLabel(bucket.model)}>
                  <td title={bucket.model ? undefined : NO_MODEL_HINT}>{modelLabel(bucket.model)}</td>
                  <td class="number">{bucket.requests}</td>
                  <td class="number">{bucket.errors}</td>
                  <td class="number">{bucket.total_tokens}</td>
                  <td class="number">{usd(bucket.cost)}</td>
                  <td class="number">{usd(bucket.savings)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
