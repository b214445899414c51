import { formatBootstrapSummary } from '../../src/cli/bootstrap-command';
import { formatCreatedKey, formatKeysTable } from '../../src/cli/keys-command';
import { formatFields, formatTable, jsonLine, type Column } from '../../src/cli/output';
import { formatSpacesTable } from '../../src/cli/spaces-command';
import type { KeyView } from '../../src/services/tenancy/key-admin';

const ORG = '11111111-1111-4111-8111-111111111111';
const APP = '22222222-2222-4222-8222-222222222222';
const KEY = '33333333-3333-4333-8333-333333333333';
const USER = '44444444-4444-4444-8444-444444444444';
const WARNING = 'Warning: this key is shown only once. Store it now; only its SHA-256 hash is kept.';

describe('jsonLine', () => {
  it('writes one compact JSON document and a newline', () => {
    expect(jsonLine({ a: 1, b: [null, 'x'] })).toBe('{"a":1,"b":[null,"x"]}\n');
  });
});

describe('formatTable', () => {
  const columns: Column<{ name: string; note: string | null }>[] = [
    { header: 'NAME', value: (r) => r.name },
    { header: 'NOTE', value: (r) => r.note },
  ];

  it('aligns columns to the widest cell, shows null as "-" and leaves no trailing blanks', () => {
    expect(
      formatTable(columns, [
        { name: 'alpha-long', note: 'x' },
        { name: 'b', note: null },
      ]),
    ).toBe('NAME        NOTE\nalpha-long  x\nb           -\n');
  });

  it('prints only the header for no rows', () => {
    expect(formatTable(columns, [])).toBe('NAME  NOTE\n');
  });
});

describe('formatFields', () => {
  it('pads labels to one width', () => {
    expect(
      formatFields([
        ['Key', 'k'],
        ['API key', 's'],
      ]),
    ).toBe('Key      k\nAPI key  s\n');
  });
});

describe('command formatters', () => {
  it('summarizes a bootstrap with the shown-once warning', () => {
    const summary = formatBootstrapSummary(
      { org_id: ORG, app_id: APP, user_id: USER, api_key: 'sy-secret', reused: false },
      { org: 'acme', space: 'main', serviceOwner: true },
    );
    expect(summary).toBe(
      [
        `Organization  ${ORG} (acme)`,
        `Space         ${APP} (main)`,
        `User          ${USER} (owner, service owner)`,
        'API key       sy-secret',
        WARNING,
        '',
      ].join('\n'),
    );
  });

  it('describes a created key, organization-wide when it has no Space', () => {
    const text = formatCreatedKey({ key_id: KEY, api_key: 'sy-secret', key_end: 'cret', role: 'member', app_id: null, service_owner: false, expires_on: null });
    expect(text).toBe(`Key      ${KEY}\nRole     member\nSpace    none (organization-wide)\nAPI key  sy-secret\n${WARNING}\n`);
  });

  it('lists keys in a table', () => {
    const key: KeyView = {
      id: KEY,
      name: 'ci',
      role: 'viewer',
      key_end: 'ab_c',
      app_id: APP,
      idp_id: 'ci@example.com',
      added_on: '2026-01-02T03:04:05.000Z',
      last_used_on: null,
      revoked_on: '2026-01-03T00:00:00.000Z',
    };
    expect(formatKeysTable([key]).split('\n')).toEqual([
      'ID                                    NAME  ROLE    KEY_END  APP_ID                                IDP_ID          ADDED_ON                  LAST_USED_ON  REVOKED_ON',
      `${KEY}  ci    viewer  ab_c     ${APP}  ci@example.com  2026-01-02T03:04:05.000Z  -             2026-01-03T00:00:00.000Z`,
      '',
    ]);
  });

  it('lists Spaces in a table', () => {
    const spaces = [
      { id: APP, name: 'main', is_active: true, sandbox_of: null, added_on: '2026-01-02T03:04:05.000Z' },
      { id: KEY, name: 'main (sandbox)', is_active: false, sandbox_of: APP, added_on: '2026-01-02T03:04:06.000Z' },
    ];
    expect(formatSpacesTable(spaces).split('\n')).toEqual([
      'ID                                    NAME            ACTIVE  SANDBOX_OF                            ADDED_ON',
      `${APP}  main            yes     -                                     2026-01-02T03:04:05.000Z`,
      `${KEY}  main (sandbox)  no      ${APP}  2026-01-02T03:04:06.000Z`,
      '',
    ]);
  });
});
