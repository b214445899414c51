import type { Command } from 'commander';
import { createSpace, listSpaces, type SpaceListing } from '../services/tenancy/space-admin';
import type { CliContext } from './context';
import { jsonOption, textOption, uuidOption } from './options';
import { formatTable, jsonLine, type Column } from './output';

interface CreateOptions {
  orgId: string;
  name: string;
  idpId?: string;
  json?: true;
}

interface ListOptions {
  orgId: string;
  json?: true;
}

const SPACE_COLUMNS: readonly Column<SpaceListing>[] = [
  { header: 'ID', value: (s) => s.id },
  { header: 'NAME', value: (s) => s.name },
  { header: 'ACTIVE', value: (s) => (s.is_active ? 'yes' : 'no') },
  { header: 'SANDBOX_OF', value: (s) => s.sandbox_of },
  { header: 'ADDED_ON', value: (s) => s.added_on },
];

export function formatSpacesTable(spaces: readonly SpaceListing[]): string {
  return formatTable(SPACE_COLUMNS, spaces);
}

export function registerSpaceCommands(program: Command, { session, io }: CliContext): void {
  const spaces = program.command('spaces').description("Create and list an organization's Spaces.");

  spaces
    .command('create')
    .description("Create a Space with the catalog's default models switched on.")
    .addOption(uuidOption('--org-id <uuid>', 'organization id').makeOptionMandatory())
    .addOption(textOption('--name <name>', 'name of the Space').makeOptionMandatory())
    .addOption(textOption('--idp-id <id>', "identity-provider id recorded as the Space's creator (default: owner@<org name>)"))
    .addOption(jsonOption())
    .action(async (options: CreateOptions) => {
      const space = await createSpace(session.db(), { orgId: options.orgId, name: options.name, idpId: options.idpId });
      io.out(options.json ? jsonLine(space) : `Created Space ${space.name} (${space.app_id}) with the default models.\n`);
    });

  spaces
    .command('list')
    .description("List the organization's Spaces, sandboxes included.")
    .addOption(uuidOption('--org-id <uuid>', 'organization id').makeOptionMandatory())
    .addOption(jsonOption())
    .action(async (options: ListOptions) => {
      const data = await listSpaces(session.db(), options.orgId);
      io.out(options.json ? jsonLine({ data }) : formatSpacesTable(data));
    });
}
