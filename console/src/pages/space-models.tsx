import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorNote } from '../components/status';
import { describeError } from '../use-api';
import { AvailabilityFilterButtons, canAnswer, shownModels, type AvailabilityFilter, type ModelSetting } from './space-model-filter';

/** USD per 1M tokens, from the API's USD per token: cents, or four digits below ten cents. */
function perMillion(perToken: number): string {
  const dollars = perToken * 1e6;
  return `$${dollars.toFixed(dollars === 0 || dollars >= 0.1 ? 2 : 4)}`;
}

/** Whether a request naming the model can be answered now, and why not (the same reason `GET /v1/models?all=true` gives). */
function Availability({ model }: { model: ModelSetting }) {
  const reason = model.unavailable_reason;
  if (!reason) return <span class="badge good">available</span>;
  return (
    <span data-unavailable={reason.code}>
      <span class="badge bad">unavailable</span> <small>{reason.message}</small>
    </span>
  );
}

/** "2 on": the models that can answer; those switched on that cannot (their provider has no key) are named apart. */
function OnCount({ models }: { models: ModelSetting[] }) {
  const answering = models.filter(canAnswer).length;
  const stuck = models.filter((model) => model.active && !canAnswer(model)).length;
  return (
    <span data-models-on={answering}>
      {answering} on{stuck > 0 && <small> · {stuck} switched on cannot answer</small>}
    </span>
  );
}

/**
 * The Space's models, those that can answer first, filtered by availability; each switched on or off with
 * `PUT /v1/apps/{app_id}/models/{model_id}`.
 */
export function ModelToggles({ appId, models, onChanged }: { appId: string; models: ModelSetting[]; onChanged(): void }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState<string | null>(null);
  const [filter, setFilter] = useState<AvailabilityFilter>('all');

  async function toggle(model: ModelSetting, active: boolean) {
    setPending(model.id);
    setError(null);
    try {
      await api('PUT', `/v1/apps/${encodeURIComponent(appId)}/models/${encodeURIComponent(model.id)}`, { body: { active } });
      onChanged();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setPending(null);
    }
  }

  return (
    <article>
      <header>
        Models (<OnCount models={models} />)
      </header>
      <AvailabilityFilterButtons models={models} value={filter} onChange={setFilter} />
      <ErrorNote error={error} />
      <div class="overflow-auto">
        <table>
          <thead>
            <tr>
              <th>Model</th>
              <th>Provider</th>
              <th class="number" title="USD per 1M tokens, input / output">
                Price per 1M (in / out)
              </th>
              <th>Context</th>
              <th>Availability</th>
              <th>On</th>
            </tr>
          </thead>
          <tbody>
            {shownModels(models, filter).map((model) => (
              <tr key={model.id} data-availability={canAnswer(model) ? 'available' : 'unavailable'}>
                <td>{model.model}</td>
                <td>{model.provider}</td>
                <td class="number price" data-price>
                  {perMillion(model.parent.prompt_token_cost)} / {perMillion(model.parent.completion_token_cost)}
                </td>
                <td>{model.context_window}</td>
                <td>
                  <Availability model={model} />
                </td>
                <td>
                  <input
                    type="checkbox"
                    role="switch"
                    aria-label={`${model.model} (${model.provider}) on`}
                    data-model={model.model}
                    checked={model.active}
                    disabled={model.globally_disabled || pending === model.id}
                    aria-busy={pending === model.id}
                    onChange={(event) => toggle(model, event.currentTarget.checked)}
                  />
                  {model.globally_disabled && <small> disabled by the service</small>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </article>
  );
}
