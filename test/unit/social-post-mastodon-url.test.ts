import type { HttpClient } from '../../src/net/http-client';
import { postToMastodon, type MastodonAccount } from '../../src/plugins/social-post/mastodon';
import { UpstreamError } from '../../src/errors/upstream-error';

const account: MastodonAccount = { network: 'mastodon', instanceUrl: 'https://social.example', accessToken: 't', visibility: 'public' };

/** An instance (a Space's setting, so untrusted) answering with this status. */
function instanceAnswering(status: object): HttpClient {
  return (request) => {
    const body = Buffer.from(JSON.stringify(status));
    return Promise.resolve({
      status: 200,
      url: request.url,
      headers: { get: () => 'application/json' },
      body,
      text: () => body.toString(),
      json: () => status,
    });
  };
}

const call = (http: HttpClient) =>
  postToMastodon(account, { text: 'hi', idempotencyKey: 'k' }, { http, signal: new AbortController().signal, timeoutMs: 1000 });

describe('postToMastodon', () => {
  it('returns the status URL', async () => {
    await expect(call(instanceAnswering({ id: '1', uri: 'https://social.example/users/a/statuses/1', url: 'https://social.example/@a/1' }))).resolves.toEqual({
      id: '1',
      url: 'https://social.example/@a/1',
    });
  });

  it.each(['javascript:alert(document.cookie)', 'data:text/html,<script>x</script>'])(
    'refuses a status whose URL is %s (it reaches clients as a link)',
    async (url) => {
      const failure = call(instanceAnswering({ id: '1', uri: url, url }));
      await expect(failure).rejects.toBeInstanceOf(UpstreamError);
      await expect(failure).rejects.toMatchObject({ kind: 'invalid_response' });
    },
  );
});
