import type { LogCoreView } from '../../../src/schemas/logs';
import { milliseconds, usd } from '../format';
import { href } from '../route';

/** "Plugin call" or "Model call", from the API's `step` (a log written before steps were marked reads as a model call). */
export function stepLabel(step: LogCoreView['step']): string {
  return step?.kind === 'plugin' ? 'Plugin call' : 'Model call';
}

/** What the step called: the plugin, or the model (by its name, else by its provider's name for it). */
export function stepTarget(log: LogCoreView): string {
  if (log.step?.kind === 'plugin') return log.step.plugin ?? log.namespace ?? '—';
  return log.model?.model ?? log.namespace ?? '—';
}

/**
 * The request's steps, oldest first: each a model call or a plugin run, with its own time (beside its
 * status, so a phone shows it without scrolling the table). A request answered by one model call keeps
 * that call in its own log: the API shows it as the one step, under the log's own id, so it is not a link
 * to another page.
 */
export function Steps({ logId, steps }: { logId: string; steps: LogCoreView[] }) {
  if (steps.length === 0) return <p>No sub-requests.</p>;
  return (
    <div class="overflow-auto">
      <table data-children>
        <thead>
          <tr>
            <th>Step</th>
            <th>Plugin or model</th>
            <th>Status</th>
            <th class="number">Latency</th>
            <th class="number">Tokens</th>
            <th class="number">Cost</th>
          </tr>
        </thead>
        <tbody>
          {steps.map((step) => (
            <tr key={step.id} data-step-kind={step.step?.kind ?? 'model'}>
              <td>{step.id === logId ? stepLabel(step.step) : <a href={href('logs', step.id)}>{stepLabel(step.step)}</a>}</td>
              <td>{stepTarget(step)}</td>
              <td>{step.status_code}</td>
              <td class="number" data-latency>
                {milliseconds(step.latency)}
              </td>
              <td class="number">{step.total_tokens}</td>
              <td class="number">{usd(step.total_tokens_cost)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
