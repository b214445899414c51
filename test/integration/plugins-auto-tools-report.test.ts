import request from 'supertest';
import { userMessage } from '../helpers/completion-fixtures';
import { AUTO_TOOLS, pluginReports, pluginSpace, usePluginHarness } from '../helpers/plugin-harness';
import type { Tenant } from '../helpers/test-context';

/**
 * `metadata.extra.auto_tools`: what auto_tools considered, picked and skipped (with why), and a
 * `metadata.warning` when it skipped a plugin the request seems to need. The images backend has no
 * key here, so image-generation-generic cannot run; the Spaces hold no files.
 */
const env = usePluginHarness({ imagesUnconfigured: true });

interface AutoToolsView {
  mode: 'preselect' | 'tool_loop' | null;
  considered: string[];
  picked: { id: string; score: number | null }[];
  skipped: { id: string; reason: string; detail: string; score: number | null }[];
}

const complete = (tenant: Tenant, content: string, flags: Record<string, string> = AUTO_TOOLS) =>
  request(env.h.app)
    .post('/v1/chat/completions')
    .set(tenant.auth)
    .set(flags)
    .send({ messages: userMessage(content) });

const autoToolsOf = (body: { metadata: { extra: { auto_tools?: AutoToolsView } } }) => body.metadata.extra.auto_tools;
const skipOf = (report: AutoToolsView | undefined, id: string) => report?.skipped.find((s) => s.id === id);
const PRESELECT = { settings: { auto_tools: { mode: 'preselect' } } };

describe('pre-selection', () => {
  it('reports the pick and each skip with its reason: no backend, no searchable files, below the threshold', async () => {
    const { tenant } = await pluginSpace(env, { update: PRESELECT });
    const res = await complete(tenant, 'What is the latest news about the tram strike today?');
    expect(res.status).toBe(200);
    const report = autoToolsOf(res.body);
    expect(report).toMatchObject({ mode: 'preselect', considered: ['web-search', 'space-search', 'image-generation-generic', 'transcribe-audio'] });
    expect(report?.picked).toEqual([{ id: 'web-search', score: expect.any(Number) }]);
    expect(report?.picked[0]?.score).toBeGreaterThanOrEqual(0.5);
    expect(skipOf(report, 'image-generation-generic')).toMatchObject({
      reason: 'no_backend',
      detail: expect.stringContaining('no backend is configured'),
      score: expect.any(Number),
    });
    expect(skipOf(report, 'space-search')).toEqual({
      id: 'space-search',
      reason: 'no_searchable_files',
      detail: 'the Space holds no searchable files',
      score: expect.any(Number),
    });
    expect(skipOf(report, 'transcribe-audio')).toMatchObject({
      reason: 'below_threshold',
      detail: expect.stringMatching(/^the classifier scored it 0\.\d+, below 0\.5$/),
    });
    expect(report?.skipped).toHaveLength(3);
    // Nothing skipped was wanted: no warning.
    expect(res.body.metadata.warning).toBe('');
    expect(pluginReports(res.body)).toEqual([expect.objectContaining({ id: 'web-search', trigger: 'preselected', status: 'ok' })]);
  });

  it('warns when it skipped a plugin without a backend that the request seems to need', async () => {
    const { tenant } = await pluginSpace(env, { update: PRESELECT });
    const res = await complete(tenant, 'Draw me a picture of a red fox in the snow');
    expect(res.status).toBe(200);
    const report = autoToolsOf(res.body);
    expect(report?.picked).toEqual([]);
    expect(skipOf(report, 'image-generation-generic')?.reason).toBe('no_backend');
    expect(skipOf(report, 'image-generation-generic')?.score).toBeGreaterThanOrEqual(0.5);
    expect(res.body.metadata.warning).toMatch(
      /^auto_tools: image-generation-generic was skipped though the request seems to need it \(asks for a drawing .*\): no backend is configured \(.*IMAGES_API_KEY.*\)\.$/,
    );
  });

  it('warns when the request asks about files the Space does not hold', async () => {
    const { tenant } = await pluginSpace(env, { update: PRESELECT });
    const res = await complete(tenant, 'According to our uploaded documents, what is the budget?');
    expect(res.status).toBe(200);
    expect(skipOf(autoToolsOf(res.body), 'space-search')).toMatchObject({ reason: 'no_searchable_files' });
    expect(res.body.metadata.warning).toContain('auto_tools: space-search was skipped though the request seems to need it');
    expect(res.body.metadata.warning).toContain('the Space holds no searchable files.');
  });
});

describe('the tool loop', () => {
  it('reports the plugins offered as picked (no score), the ones that cannot run as skipped, and warns for a wanted one', async () => {
    const { tenant } = await pluginSpace(env);
    const res = await complete(tenant, 'Generate an image of a red fox');
    expect(res.status).toBe(200);
    const report = autoToolsOf(res.body);
    expect(report?.mode).toBe('tool_loop');
    expect(report?.picked).toEqual([
      { id: 'web-search', score: null },
      { id: 'space-search', score: null },
      { id: 'transcribe-audio', score: null },
    ]);
    expect(report?.skipped).toEqual([
      { id: 'image-generation-generic', reason: 'no_backend', detail: expect.stringContaining('IMAGES_API_KEY'), score: expect.any(Number) },
    ]);
    expect(res.body.metadata.warning).toContain('auto_tools: image-generation-generic was skipped though the request seems to need it');
  });
});

describe('without auto_tools', () => {
  it('adds no auto_tools report', async () => {
    const { tenant } = await pluginSpace(env);
    const res = await complete(tenant, 'Draw me a picture of a red fox in the snow', {});
    expect(res.status).toBe(200);
    expect(res.body.metadata.extra).toEqual({});
    expect(res.body.metadata.warning).toBe('');
  });
});
