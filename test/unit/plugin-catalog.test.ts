import { PLUGIN_IDS } from '../../src/domain/plugin-output';
import { PLUGIN_BUILDERS } from '../../src/plugins/build-plugins';
import { canonicalPluginId, descriptorOf, isPluginAlias, PLUGIN_DESCRIPTORS, toolNameOf } from '../../src/plugins/catalog';
import type { SpaceFacts } from '../../src/plugins/types';

const withFiles = (has: boolean): SpaceFacts => ({ hasSearchableFiles: () => Promise.resolve(has) });

describe('the plugin catalog', () => {
  it('knows every id of the contract, each as one plugin or one alias', () => {
    const declared = PLUGIN_DESCRIPTORS.flatMap((d) => [d.id, ...d.aliases]);
    expect([...declared].sort()).toEqual([...PLUGIN_IDS].sort());
    for (const id of PLUGIN_IDS) expect(descriptorOf(id)).toBeDefined();
  });

  it('runs an alias as its plugin: legacy-file-search is space-search', () => {
    expect(canonicalPluginId('legacy-file-search')).toBe('space-search');
    expect(canonicalPluginId('web-search')).toBe('web-search');
    expect(isPluginAlias('legacy-file-search')).toBe(true);
    expect(isPluginAlias('space-search')).toBe(false);
  });

  it('offers each plugin to the model under one distinct tool name, and never an alias', () => {
    const names = Object.fromEntries(PLUGIN_IDS.map((id) => [id, toolNameOf(id)]));
    expect(names).toEqual({
      'web-search': 'web_search',
      'space-search': 'space_search',
      'image-generation-generic': 'generate_image',
      'transcribe-audio': 'transcribe_audio',
      'social-post': 'social_post',
      'legacy-file-search': null,
    });
  });

  it('caches web-search only', () => {
    expect(PLUGIN_IDS.filter((id) => descriptorOf(id).cacheable)).toEqual(['web-search']);
  });

  it('has a builder for every plugin', () => {
    expect(Object.keys(PLUGIN_BUILDERS).sort()).toEqual(PLUGIN_DESCRIPTORS.map((d) => d.id).sort());
  });

  it('lets auto_tools use social-post only with allow_auto_tools, and no other plugin is held back by its settings', () => {
    const social = descriptorOf('social-post');
    expect(social.autoToolsRefusal?.(undefined)).toBe("the Space's social-post settings do not set allow_auto_tools");
    expect(social.autoToolsRefusal?.({ allow_auto_tools: false })).not.toBeNull();
    expect(social.autoToolsRefusal?.({ allow_auto_tools: true })).toBeNull();
    expect(PLUGIN_DESCRIPTORS.filter((d) => d.autoToolsRefusal).map((d) => d.id)).toEqual(['social-post']);
  });

  it('fails a named social-post at once when the Space has no account', () => {
    const social = descriptorOf('social-post');
    expect(social.settingsProblem?.(undefined)).toContain('no social account');
    expect(
      social.settingsProblem?.({ network: 'mastodon', mastodon: { instance_url: 'https://mastodon.example', visibility: 'public', has_access_token: true } }),
    ).toBeNull();
  });

  it('has space-search (and its alias) ready only in a Space with files; the others always', async () => {
    await expect(descriptorOf('space-search').readiness?.(withFiles(false))).resolves.toEqual({
      reason: 'no_searchable_files',
      detail: 'the Space holds no searchable files',
    });
    await expect(descriptorOf('legacy-file-search').readiness?.(withFiles(true))).resolves.toBeNull();
    expect(PLUGIN_DESCRIPTORS.filter((d) => d.readiness).map((d) => d.id)).toEqual(['space-search']);
  });
});
