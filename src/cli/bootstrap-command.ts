import { Option, type Command } from 'commander';
import type { Role } from '../domain/permissions';
import { bootstrapTenant, type BootstrapResult } from '../services/tenancy/bootstrap';
import type { CliContext } from './context';
import { jsonOption, parseNameList, parseRateLimit, roleOption, textOption } from './options';
import { formatFields, jsonLine, SHOWN_ONCE_WARNING } from './output';

interface BootstrapOptions {
  org: string;
  space: string;
  serviceOwner?: true;
  idpId?: string;
  role?: Role;
  rateLimit?: number;
  activate?: string[];
  json?: true;
}

export function formatBootstrapSummary(result: BootstrapResult, options: BootstrapOptions): string {
  const role = `${options.role ?? 'owner'}${options.serviceOwner ? ', service owner' : ''}`;
  return (
    formatFields([
      ['Organization', `${result.org_id} (${options.org})`],
      ['Space', `${result.app_id} (${options.space})`],
      ['User', `${result.user_id} (${role})`],
      ['API key', result.api_key],
    ]) + `${SHOWN_ONCE_WARNING}\n`
  );
}

/** Said on stderr when the Space already existed, so a second run is never mistaken for a second Space. */
export function reuseNotice(result: BootstrapResult, options: BootstrapOptions): string {
  return (
    `Reused the existing Space ${result.app_id} (${options.space}) of organization ${result.org_id} (${options.org}): ` +
    'no second Space was created. The key printed is a new one; earlier keys still work (see `keys list` and `keys revoke`).\n'
  );
}

export function registerBootstrapCommand(program: Command, { session, io }: CliContext): void {
  program
    .command('bootstrap')
    .description(
      'Create an organization, its owner, a Space with the default models and a new key bound to it. ' +
        'An existing organization or Space of that name is reused (the options are applied to it), and the key is always new.',
    )
    .addOption(textOption('--org <name>', 'organization name; an existing organization of that name is reused').makeOptionMandatory())
    .addOption(textOption('--space <name>', "Space name; the organization's existing Space of that name is reused").makeOptionMandatory())
    .addOption(new Option('--service-owner', 'make the user a service owner (reviews public prompts, manages queues)'))
    .addOption(textOption('--idp-id <id>', 'identity-provider id of the owner user (default: owner@<org>)'))
    .addOption(roleOption('role of the new key (default: owner)'))
    .addOption(new Option('--rate-limit <n>', "the Space's requests per minute, 0 for no limit (default: 0)").argParser(parseRateLimit))
    .addOption(
      new Option(
        '--activate <models>',
        'comma-separated catalog models to switch on besides the default ones, e.g. test-echo (answers locally, no provider key)',
      ).argParser(parseNameList),
    )
    .addOption(jsonOption())
    .action(async (options: BootstrapOptions) => {
      const result = await bootstrapTenant(session.db(), {
        org: options.org,
        space: options.space,
        serviceOwner: options.serviceOwner ?? false,
        idpId: options.idpId,
        role: options.role,
        rateLimit: options.rateLimit,
        activate: options.activate,
      });
      // A reused Space may have a new rate limit or more active models: running processes reload it on their next request.
      if (result.reused) await session.spaceVersions().bump([result.app_id]);
      io.out(
        options.json
          ? jsonLine({ org_id: result.org_id, app_id: result.app_id, api_key: result.api_key, reused: result.reused })
          : formatBootstrapSummary(result, options),
      );
      if (result.reused) io.err(reuseNotice(result, options));
    });
}
