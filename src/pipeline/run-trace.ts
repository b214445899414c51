import { costOf, ZERO_COSTS, type Costs } from '../accounting/costs';
import { sumUsage, withReasoningTokens, type Usage } from '../domain/chat';
import type { AutoToolsReport, PluginReport } from '../domain/completion';
import type { RoutableModel } from '../domain/routable-model';
import type { ArtifactItem, SearchResultItem } from '../plugins/types';
import type { AttemptRecord, PluginRecord, StepRecord } from './attempt-record';

/** Rounded to a billionth of a dollar, as `costOf` does. */
const usd = (value: number) => Math.round(value * 1e9) / 1e9;

/**
 * Everything one run of a request gathers on its way: its steps (child logs, or a lone call kept in the
 * request's own log), the model calls' usage and cost, the plugins' results, artifacts and cost, and the
 * warnings. The result, the log and the failure are all read from it, so each figure is added up in one place.
 */
export class RunTrace {
  readonly steps: StepRecord[] = [];
  readonly warnings: string[] = [];
  readonly errors: string[] = [];
  readonly searchResults: SearchResultItem[] = [];
  readonly artifacts: ArtifactItem[] = [];
  readonly plugins: PluginReport[] = [];
  /** What auto_tools considered, picked and skipped; null unless auto_tools is on for the request. */
  autoTools: AutoToolsReport | null = null;
  /**
   * Whether the ids the request names (conversation, parent request, assistant) were checked as the
   * caller's: until they are, its log links to none of them and keeps none of them in its payload.
   */
  namedIdsChecked = false;
  /** The model that gave the last answer, and how long that call took (ms). */
  answered: { model: RoutableModel; latencyMs: number } | null = null;
  private usage: Usage = sumUsage(0, 0);
  private modelCosts: Costs = ZERO_COSTS;
  private pluginCostUsd = 0;
  private answers = 0;

  addAttempts(records: AttemptRecord[]): void {
    for (const record of records) if (!this.steps.includes(record)) this.steps.push(record);
  }

  /** A model call that answered: its usage counts in the request's usage and cost. */
  addAnswer(model: RoutableModel, { usage, latencyMs }: { usage: Usage; latencyMs: number }): void {
    this.answered = { model, latencyMs };
    this.answers += 1;
    const total = sumUsage(this.usage.prompt_tokens + usage.prompt_tokens, this.usage.completion_tokens + usage.completion_tokens);
    // Part of the completion tokens, so already in their cost; summed only when a call reported some.
    if (usage.reasoning_tokens !== undefined || this.usage.reasoning_tokens !== undefined)
      withReasoningTokens(total, (this.usage.reasoning_tokens ?? 0) + (usage.reasoning_tokens ?? 0));
    this.usage = total;
    const costs = costOf(model, usage);
    this.modelCosts = {
      prompt_tokens: usd(this.modelCosts.prompt_tokens + costs.prompt_tokens),
      completion_tokens: usd(this.modelCosts.completion_tokens + costs.completion_tokens),
      total_tokens: usd(this.modelCosts.total_tokens + costs.total_tokens),
    };
  }

  addPlugin(record: PluginRecord, report: PluginReport): void {
    this.steps.push(record);
    this.plugins.push(report);
    this.pluginCostUsd = usd(this.pluginCostUsd + record.costUsd);
  }

  /** Sources are numbered across plugins: the next one's first number. */
  nextSourceIndex(): number {
    return this.searchResults.length + 1;
  }

  totalUsage(): Usage {
    return this.usage;
  }

  /** The model tokens' cost only, for savings against the benchmark model. */
  modelCost(): Costs {
    return this.modelCosts;
  }

  /** Model tokens, with the plugins' costs in the total. */
  costs(): Costs {
    const { prompt_tokens, completion_tokens, total_tokens } = this.modelCosts;
    return { prompt_tokens, completion_tokens, total_tokens: usd(total_tokens + this.pluginCostUsd) };
  }

  /** Model calls after the first (retries and failovers), over all the request's model steps. */
  retries(): number {
    const calls = this.steps.filter((step) => step.kind === 'model').length;
    return Math.max(0, calls - Math.max(this.answers, 1));
  }

  /** The model a failed request's log names: the last one called. */
  lastModel(): RoutableModel | null {
    const models = this.steps.filter((step): step is AttemptRecord => step.kind === 'model');
    return this.answered?.model ?? models.at(-1)?.model ?? null;
  }
}
