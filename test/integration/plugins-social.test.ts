import request from 'supertest';
import { callsTo, complete, logsOf, onlyLogOf, userMessage } from '../helpers/completion-fixtures';
import { mastodonSettings, pluginReports, pluginSpace, usePluginHarness } from '../helpers/plugin-harness';

/** Plugins a request names that cannot run here, and social-post, whose effect is the point of the request. */
const env = usePluginHarness({ imagesUnconfigured: true });

interface Artifact {
  type: string;
  network?: string;
  url?: string;
}

describe('an unconfigured plugin', () => {
  it('is named as unavailable in metadata.warning and the request still answers', async () => {
    const { tenant } = await pluginSpace(env);
    const res = await complete(env.h, tenant, { plugins: ['image-generation-generic'], messages: userMessage('Draw a lighthouse') });
    expect(res.status).toBe(200);
    expect(res.body.metadata.warning).toMatch(/image-generation-generic is unavailable/);
    expect(res.body.metadata.error).toBe('');
    expect(pluginReports(res.body)).toEqual([expect.objectContaining({ id: 'image-generation-generic', status: 'unavailable' })]);
    expect(env.media.requests.filter((r) => r.path.includes('images'))).toHaveLength(0);
  });
});

describe('a named social-post', () => {
  it('without an account: 400 plugin_unavailable before any model call', async () => {
    const { tenant, models } = await pluginSpace(env);
    const res = await complete(env.h, tenant, { plugins: ['social-post'], messages: userMessage('Announce the new timetable') });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'plugin_unavailable', param: 'plugins' });
    expect(callsTo(env.sim, models.answering)).toHaveLength(0);
    expect(env.mastodon.requests).toHaveLength(0);
  });

  it('whose network fails: 502 plugin_failed, and the log says so', async () => {
    const { tenant } = await pluginSpace(env, { update: { settings: mastodonSettings(env) } });
    env.mastodon.faults.push({ kind: 'status', status: 503 }, { kind: 'status', status: 503 }, { kind: 'status', status: 503 });
    const res = await complete(env.h, tenant, { plugins: ['social-post'], messages: userMessage('Announce the ferry strike') });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ code: 'plugin_failed', param: 'plugins' });
    expect(res.body.error.message).toContain('social-post');
    expect(env.mastodon.statuses).toHaveLength(0);

    const { parent, children } = await onlyLogOf(env.h, tenant);
    expect(parent.status_code).toBe(502);
    const plugin = children.find((child) => child.namespace === 'social-post');
    expect(plugin?.status_code).toBeGreaterThanOrEqual(500);
    expect(plugin?.response).toMatchObject({ error: expect.objectContaining({ message: expect.any(String) }) });
  });

  it('that works: posts the answer once, returns the post URL as an artifact, and a replay never posts again', async () => {
    const { tenant } = await pluginSpace(env, { update: { settings: mastodonSettings(env) } });
    const before = env.mastodon.statuses.length;
    const send = () =>
      request(env.h.app)
        .post('/v1/chat/completions')
        .set(tenant.auth)
        .set('Idempotency-Key', `post-${tenant.app_id}`)
        .send({ stream: false, plugins: ['social-post'], messages: userMessage('The night ferry runs again from Monday') });
    const res = await send();
    expect(res.status).toBe(200);
    expect(env.mastodon.statuses).toHaveLength(before + 1);
    const posted = env.mastodon.statuses.at(-1);
    expect(posted?.content).toContain('Echo: The night ferry runs again from Monday');
    expect(posted?.visibility).toBe('unlisted');
    const artifacts = res.body.metadata.generated_artifacts.items as Artifact[];
    expect(artifacts).toEqual([expect.objectContaining({ type: 'social_post', network: 'mastodon', url: posted?.url })]);
    expect(pluginReports(res.body)).toEqual([expect.objectContaining({ id: 'social-post', status: 'ok', trigger: 'requested' })]);

    const again = await send();
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(res.body.id);
    expect(env.mastodon.statuses).toHaveLength(before + 1);
    const { children } = await logsOf(env.h, res.body.id as string);
    expect(children.filter((child) => child.namespace === 'social-post')).toHaveLength(1);
  });
});
