import { Option, type Command } from 'commander';
import { ApiError } from '../errors/api-error';
import type { ModelActiveForAppView } from '../schemas/models';
import { closeNamesHint } from './close-names';
import { cliServices } from './cli-services';
import type { CliContext } from './context';
import { registerCustomModelCommands } from './custom-models-command';
import { operatorAuth } from './operator-auth';
import { jsonOption, textOption, uuidOption } from './options';
import { formatTable, jsonLine, type Column } from './output';
import { findSpace, type SpaceRef } from './space-ref';

interface SpaceOptions {
  space: string;
  orgId?: string;
  json?: true;
}

interface ListOptions extends SpaceOptions {
  all?: true;
}

/** One row of `models list`: a model as the Space sees it, prices per 1M tokens as the catalog gives them. */
export interface SpaceModelRow {
  id: string;
  model: string;
  provider: string;
  kind: 'catalog' | 'custom';
  active: boolean;
  globally_disabled: boolean;
  /** USD per 1M prompt tokens. */
  prompt_per_1m: number;
  /** USD per 1M completion tokens. */
  completion_per_1m: number;
  context_window: number;
  /** Whether a request naming it can be answered now (as `GET /v1/models` decides). */
  available: boolean;
  /** Why not (`code` stable, `message` for people), when not available. */
  unavailable_reason: ModelActiveForAppView['unavailable_reason'];
}

/** Stored per token; rounding keeps 0.15 per 1M from printing as 0.15000000000000002. */
const perMillion = (perToken: number) => Math.round(perToken * 1e6 * 1e9) / 1e9;

function rowOf(view: ModelActiveForAppView, kind: SpaceModelRow['kind']): SpaceModelRow {
  return {
    id: view.id,
    model: view.model,
    provider: view.provider,
    kind,
    active: view.active,
    globally_disabled: view.globally_disabled,
    prompt_per_1m: perMillion(view.parent.prompt_token_cost),
    completion_per_1m: perMillion(view.parent.completion_token_cost),
    context_window: view.context_window,
    available: view.available,
    unavailable_reason: view.unavailable_reason,
  };
}

const MODEL_COLUMNS: readonly Column<SpaceModelRow>[] = [
  { header: 'NAME', value: (m) => m.model },
  { header: 'PROVIDER', value: (m) => m.provider },
  { header: 'KIND', value: (m) => m.kind },
  { header: 'ACTIVE', value: (m) => (m.globally_disabled ? 'disabled globally' : m.active ? 'yes' : 'no') },
  { header: 'PROMPT_PER_1M', value: (m) => String(m.prompt_per_1m) },
  { header: 'COMPLETION_PER_1M', value: (m) => String(m.completion_per_1m) },
  { header: 'CONTEXT', value: (m) => String(m.context_window) },
  { header: 'AVAILABLE', value: (m) => (m.unavailable_reason ? `no: ${m.unavailable_reason.message} (${m.unavailable_reason.code})` : 'yes') },
];

export function formatModelsTable(rows: readonly SpaceModelRow[]): string {
  return formatTable(MODEL_COLUMNS, rows);
}

/** The Space's catalog and custom models, through the service behind GET /v1/apps/{app_id}/models. */
async function spaceModels(ctx: CliContext, space: SpaceRef): Promise<SpaceModelRow[]> {
  const listing = await cliServices.appModels(ctx.session).list(operatorAuth(space.org_id), space.id);
  return [...listing.base_model_settings.map((m) => rowOf(m, 'catalog')), ...listing.custom_model_settings.map((m) => rowOf(m, 'custom'))];
}

/** The rows the names mean; every unknown name is reported at once, with the names it was probably meant to be. */
export function pickByName(rows: readonly SpaceModelRow[], names: readonly string[], listCommand: string): SpaceModelRow[] {
  const known = rows.map((row) => row.model);
  const problems: string[] = [];
  const picked = names.flatMap((name) => {
    const row = rows.find((r) => r.model === name);
    if (!row) problems.push(`No model '${name}' in this Space. ${closeNamesHint(name, known, listCommand)}`);
    return row ? [row] : [];
  });
  if (problems.length > 0) throw new ApiError('invalid_value', problems.join('\n'), 'model');
  return picked;
}

async function setActive(ctx: CliContext, options: SpaceOptions & { names: string[]; active: boolean }): Promise<void> {
  const space = await findSpace(ctx.session.db(), options);
  const rows = pickByName(await spaceModels(ctx, space), options.names, `models list --all --space ${options.space}`);
  const service = cliServices.appModels(ctx.session);
  for (const row of rows) await service.setActive(operatorAuth(space.org_id), { appId: space.id, modelId: row.id }, options.active);
  const changed = rows.map((row) => ({ id: row.id, model: row.model, active: options.active }));
  const verb = options.active ? 'Enabled' : 'Disabled';
  ctx.io.out(
    options.json
      ? jsonLine({ space: { id: space.id, name: space.name }, data: changed })
      : `${verb} in Space ${space.name} (${space.id}): ${changed.map((m) => m.model).join(', ')}\n`,
  );
}

const spaceOption = () => textOption('--space <id|name>', 'the Space, by id or name').makeOptionMandatory();
const orgOption = () => uuidOption('--org-id <uuid>', 'organization id (needed when several organizations have a Space of that name)');

export function registerModelCommands(program: Command, ctx: CliContext): void {
  const models = program.command('models').description("A Space's models: list them, switch them on and off by name, add custom ones.");

  models
    .command('list')
    .description(
      "List the Space's models that can answer now (as GET /v1/models does): name, provider, whether active, prices (USD per 1M tokens). With --all, every catalog and custom model the Space can see, and why each unavailable one cannot answer.",
    )
    .addOption(spaceOption())
    .addOption(orgOption())
    .addOption(new Option('--all', 'also the models that cannot answer now (off in the Space, provider key missing, ...), with the reason'))
    .addOption(jsonOption())
    .action(async (options: ListOptions) => {
      const space = await findSpace(ctx.session.db(), options);
      const every = await spaceModels(ctx, space);
      const rows = options.all ? every : every.filter((row) => row.available);
      ctx.io.out(options.json ? jsonLine({ space: { id: space.id, name: space.name }, data: rows }) : formatModelsTable(rows));
    });

  for (const [name, active] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    models
      .command(name)
      .description(`Switch models ${active ? 'on' : 'off'} in a Space, by name (as clients send them).`)
      .argument('<models...>', 'model names')
      .addOption(spaceOption())
      .addOption(orgOption())
      .addOption(jsonOption())
      .action(async (names: string[], options: SpaceOptions) => setActive(ctx, { ...options, names, active }));
  }

  registerCustomModelCommands(models, ctx);
}
