import type { Command } from 'commander';
import { listOrganizations, type OrganizationListing } from '../store/organization-list';
import type { CliContext } from './context';
import { jsonOption } from './options';
import { formatTable, jsonLine, type Column } from './output';

const ORG_COLUMNS: readonly Column<OrganizationListing>[] = [
  { header: 'ID', value: (o) => o.id },
  { header: 'NAME', value: (o) => o.name },
  { header: 'SPACES', value: (o) => String(o.spaces) },
  { header: 'ADDED_ON', value: (o) => o.added_on },
];

export function registerOrgCommands(program: Command, { session, io }: CliContext): void {
  const orgs = program.command('orgs').description('The organizations of this service.');
  orgs
    .command('list')
    .description('List every organization with its number of Spaces, oldest first.')
    .addOption(jsonOption())
    .action(async (options: { json?: true }) => {
      const data = await listOrganizations(session.db());
      io.out(options.json ? jsonLine({ data }) : formatTable(ORG_COLUMNS, data));
    });
}
