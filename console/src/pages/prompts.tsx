import { useState } from 'preact/hooks';
import type { PromptView } from '../../../src/schemas/prompts';
import { api, type ListPage } from '../api';
import { ErrorNote, LoadState } from '../components/status';
import { dateTime } from '../format';
import { describeError, useApi } from '../use-api';

const STATUSES = ['pending', 'approved', 'declined', 'draft'] as const;

/** Approve or decline: service owners only (`prompts:review`); anyone else sees the API's 403 message. */
function Review({ prompt, onDone }: { prompt: PromptView; onDone(): void }) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  async function act(action: 'approve' | 'decline') {
    setError(null);
    try {
      await api('POST', `/v1/internal/prompts/${encodeURIComponent(prompt.id)}/${action}`, {
        body: action === 'decline' ? { decline_reason: reason } : undefined,
      });
      onDone();
    } catch (err) {
      setError(describeError(err));
    }
  }
  return (
    <form
      class="actions"
      onSubmit={(event) => {
        event.preventDefault();
        void act('decline');
      }}
    >
      <button type="button" onClick={() => act('approve')}>
        Approve
      </button>
      <input
        name="decline_reason"
        aria-label="Reason to decline"
        placeholder="Reason to decline"
        required
        value={reason}
        onInput={(event) => setReason(event.currentTarget.value)}
      />
      <button type="submit" class="secondary">
        Decline
      </button>
      <ErrorNote error={error} />
    </form>
  );
}

/** Prompts submitted for publication, and the other review states. */
export function PromptsPage() {
  const [status, setStatus] = useState<(typeof STATUSES)[number]>('pending');
  const [scope, setScope] = useState<'organization' | 'review'>('organization');
  const prompts = useApi(() => api<ListPage<PromptView>>('GET', '/v1/prompts', { query: { status, scope, limit: 100 } }), [status, scope]);
  return (
    <section>
      <h1>Prompt review</h1>
      <label>
        Whose prompts
        <select name="scope" value={scope} onChange={(event) => setScope(event.currentTarget.value === 'review' ? 'review' : 'organization')}>
          <option value="organization">My organization</option>
          <option value="review">Every organization (service owners)</option>
        </select>
      </label>
      <div role="group" aria-label="Review state">
        {STATUSES.map((name) => (
          <button key={name} type="button" class={name === status ? '' : 'outline'} aria-pressed={name === status} onClick={() => setStatus(name)}>
            {name}
          </button>
        ))}
      </div>
      <LoadState state={prompts} />
      {prompts.data?.data.length === 0 && <p>No {status} prompts.</p>}
      {prompts.data?.data.map((prompt) => (
        <article key={prompt.id} data-prompt={prompt.title}>
          <header>
            <strong>{prompt.title}</strong> · <span class="badge">{prompt.status}</span> · {prompt.tokens} tokens
            {prompt.published_on && <> · submitted {dateTime(prompt.published_on)}</>}
          </header>
          <p>{prompt.description}</p>
          <div class="pre">{prompt.prompt}</div>
          {prompt.decline_reason && <p>Declined: {prompt.decline_reason}</p>}
          {prompt.status === 'pending' && <Review prompt={prompt} onDone={prompts.reload} />}
        </article>
      ))}
    </section>
  );
}
