import { Option, type Command } from 'commander';
import type { Role } from '../domain/permissions';
import { createOrgKey, listOrgKeys, revokeOrgKey, type CreatedKey, type KeyView } from '../services/tenancy/key-admin';
import type { CliContext } from './context';
import { jsonOption, parseNameList, parseWholeNumber, roleOption, textOption, uuidOption } from './options';
import { formatFields, formatTable, jsonLine, SHOWN_ONCE_WARNING, type Column } from './output';

interface CreateOptions {
  orgId: string;
  idpId?: string;
  role?: Role;
  appId?: string;
  name?: string;
  serviceOwner?: true;
  expiresIn?: number;
  allowedModels?: string[];
  json?: true;
}

interface OrgOptions {
  orgId: string;
  json?: true;
}

interface RevokeOptions extends OrgOptions {
  keyId: string;
}

const KEY_COLUMNS: readonly Column<KeyView>[] = [
  { header: 'ID', value: (k) => k.id },
  { header: 'NAME', value: (k) => k.name },
  { header: 'ROLE', value: (k) => k.role },
  { header: 'KEY_END', value: (k) => k.key_end },
  { header: 'APP_ID', value: (k) => k.app_id },
  { header: 'IDP_ID', value: (k) => k.idp_id },
  { header: 'ADDED_ON', value: (k) => k.added_on },
  { header: 'LAST_USED_ON', value: (k) => k.last_used_on },
  { header: 'REVOKED_ON', value: (k) => k.revoked_on },
];

export function formatKeysTable(keys: readonly KeyView[]): string {
  return formatTable(KEY_COLUMNS, keys);
}

export function formatCreatedKey(key: CreatedKey): string {
  const fields: [string, string][] = [
    ['Key', key.key_id],
    ['Role', key.service_owner ? `${key.role}, service owner (queues:admin, prompt review)` : key.role],
    ['Space', key.app_id ?? 'none (organization-wide)'],
  ];
  if (key.expires_on) fields.push(['Expires', key.expires_on]);
  fields.push(['API key', key.api_key]);
  return formatFields(fields) + `${SHOWN_ONCE_WARNING}\n`;
}

export function registerKeyCommands(program: Command, { session, io }: CliContext): void {
  const keys = program.command('keys').description("Create, list and revoke an organization's API keys.");

  keys
    .command('create')
    .description('Create a key (and its user when missing); the secret is printed once.')
    .addOption(uuidOption('--org-id <uuid>', 'organization id').makeOptionMandatory())
    .addOption(textOption('--idp-id <id>', "identity-provider id of the key's user, created when missing (default: owner@<org name>)"))
    .addOption(roleOption('role of the key (default: member)'))
    .addOption(uuidOption('--app-id <uuid>', 'Space of the organization the key acts on (default: none, organization-wide)'))
    .addOption(textOption('--name <name>', 'label shown in listings (default: "<role> key for <idp id>")'))
    .addOption(
      new Option(
        '--service-owner',
        "a service owner's key (queues:admin for the queue dashboard at /admin/queues, prompt review); its user defaults to service-owner@<org name>",
      ),
    )
    .addOption(new Option('--expires-in <seconds>', 'seconds until the key stops authenticating (default: never)').argParser(parseWholeNumber))
    .addOption(new Option('--allowed-models <models>', 'comma-separated models the key may call (default: every model of its Space)').argParser(parseNameList))
    .addOption(jsonOption())
    .action(async (options: CreateOptions) => {
      const key = await createOrgKey(session.db(), {
        orgId: options.orgId,
        idpId: options.idpId,
        role: options.role,
        appId: options.appId,
        name: options.name,
        serviceOwner: options.serviceOwner ?? false,
        expiresInSeconds: options.expiresIn,
        allowedModels: options.allowedModels,
      });
      io.out(options.json ? jsonLine(key) : formatCreatedKey(key));
    });

  keys
    .command('list')
    .description("List the organization's keys, revoked ones included (never a secret or hash).")
    .addOption(uuidOption('--org-id <uuid>', 'organization id').makeOptionMandatory())
    .addOption(jsonOption())
    .action(async (options: OrgOptions) => {
      const data = await listOrgKeys(session.db(), options.orgId);
      io.out(options.json ? jsonLine({ data }) : formatKeysTable(data));
    });

  keys
    .command('revoke')
    .description('Revoke a key of the organization; it stops authenticating at once in every running API process.')
    .addOption(uuidOption('--org-id <uuid>', 'organization id').makeOptionMandatory())
    .addOption(uuidOption('--key-id <uuid>', 'id of the key to revoke').makeOptionMandatory())
    .addOption(jsonOption())
    .action(async (options: RevokeOptions) => {
      const revocations = session.keyRevocations();
      const revoked = await revokeOrgKey(session.db(), { orgId: options.orgId, keyId: options.keyId, forget: (hashes) => revocations.announce(hashes) });
      io.out(options.json ? jsonLine(revoked) : `Revoked key ${revoked.key_id} on ${revoked.revoked_on}.\n`);
    });
}
