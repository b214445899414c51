import { useEffect, useState } from 'preact/hooks';
import type { SpaceDetailView } from '../../../src/schemas/apps';
import type { LogView } from '../../../src/schemas/logs';
import { api } from '../api';
import { LoadState } from '../components/status';
import { dateTime, milliseconds, usd } from '../format';
import { href } from '../route';
import { sourcesOf } from '../sources';
import { useApi } from '../use-api';
import { Explanation } from './log-explanation';
import { RateAnswer } from './log-rating';
import { Sources } from './log-sources';
import { stepLabel, stepTarget, Steps } from './log-steps';

/** Text exactly as the API shows it (masked for privacy level 2); Preact escapes it, so markup stays text. */
function Text({ label, text }: { label: string; text: string | null }) {
  return (
    <details open>
      <summary>{label}</summary>
      <div class="pre" data-text={label}>
        {text || '—'}
      </div>
    </details>
  );
}

/** The log's Space by its name (its id's start while the name loads, or when this key cannot read the Space). */
function SpaceLink({ appId, sandbox }: { appId: string; sandbox: boolean }) {
  const space = useApi(() => api<SpaceDetailView>('GET', `/v1/apps/${encodeURIComponent(appId)}`), [appId]);
  return (
    <a href={href('spaces', appId)} data-space-link>
      {space.data?.app.name ?? appId.slice(0, 8)}
      {sandbox ? ' (sandbox)' : ''}
    </a>
  );
}

/** The log's latency: a request's is its answering model's, which the page says when plugins also took time (their own is in the steps). */
function Latency({ log }: { log: LogView }) {
  const plugins = (log.children ?? []).some((child) => child.step?.kind === 'plugin');
  if (!plugins || log.latency === null) return <>{milliseconds(log.latency)}</>;
  return (
    <>
      {milliseconds(log.latency)} <small>the model's; each step's below</small>
    </>
  );
}

function Facts({ log }: { log: LogView }) {
  return (
    <div class="overflow-auto">
      <table class="facts">
        <tbody>
          <tr>
            <th>Added</th>
            <td>{dateTime(log.added_on)}</td>
            <th>{log.step?.kind === 'plugin' ? 'Plugin' : 'Model'}</th>
            <td>{log.step?.kind === 'plugin' ? stepTarget(log) : log.model ? `${log.model.model} (${log.model.provider})` : (log.namespace ?? '—')}</td>
          </tr>
          <tr>
            <th>Status</th>
            <td>{log.status_code}</td>
            <th>Latency</th>
            <td>
              <Latency log={log} />
            </td>
          </tr>
          <tr>
            <th>Tokens</th>
            <td>
              {log.prompt_tokens} in · {log.completion_tokens} out
            </td>
            <th>Cost · savings</th>
            <td>
              {usd(log.total_tokens_cost)} · {usd(log.total_tokens_cost_savings)}
            </td>
          </tr>
          <tr>
            <th>Privacy level</th>
            <td>{log.privacy_level}</td>
            <th>Space</th>
            <td>{log.app_id ? <SpaceLink appId={log.app_id} sandbox={log.is_test} /> : '—'}</td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}

/** One log with its sub-requests, its rating, and the router's explanation. */
export function LogDetailPage({ logId }: { logId: string }) {
  const loaded = useApi(() => api<LogView>('GET', `/v1/logs/${encodeURIComponent(logId)}`, { query: { include: 'children' } }), [logId]);
  const [log, setLog] = useState<LogView | null>(null);
  useEffect(() => setLog(loaded.data), [loaded.data]);
  return (
    <section>
      <p>
        <a href={href('logs')}>← Logs</a>
      </p>
      <LoadState state={loaded} />
      {log && (
        <>
          <h1>Request {log.id.slice(0, 8)}</h1>
          {log.parent && (
            <p>
              {stepLabel(log.step)}, a step of request <a href={href('logs', log.parent.id)}>{log.parent.id.slice(0, 8)}</a>
            </p>
          )}
          <Facts log={log} />
          {log.parent_id === null && <RateAnswer log={log} onRated={(rated) => setLog({ ...rated, children: log.children })} />}
          <Text label="Prompt" text={log.prompt} />
          <Text label="Answer" text={log.response_text} />
          <h2>Router's explanation</h2>
          <Explanation response={log.response} request={log.payload} answeredBy={log.model?.model ?? null} />
          <h2>Sub-requests</h2>
          <Steps logId={log.id} steps={log.children ?? []} />
          <Sources sources={log.step === null ? sourcesOf(log.response) : log.step.kind === 'plugin' ? sourcesOf(log.parent?.response) : []} />
        </>
      )}
    </section>
  );
}
