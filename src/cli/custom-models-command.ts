import { InvalidArgumentError, Option, type Command } from 'commander';
import { ApiError } from '../errors/api-error';
import { apiErrorFromZod } from '../errors/zod-error';
import { createCustomModelBody, CUSTOM_MODEL_PROVIDERS, type CustomModelView } from '../schemas/custom-models';
import { closeNamesHint } from './close-names';
import { cliServices } from './cli-services';
import type { CliContext } from './context';
import { jsonOption, parseText, textOption, uuidOption } from './options';
import { formatFields, jsonLine } from './output';
import { findSpace } from './space-ref';

interface OwnerOptions {
  orgId?: string;
  space?: string;
  json?: true;
}

interface AddOptions extends OwnerOptions {
  name: string;
  baseUrl: string;
  upstreamModel: string;
  provider?: string;
  apiKeyEnv?: string;
  promptPrice?: number;
  completionPrice?: number;
  contextWindow: number;
  functions?: true;
  jsonMode?: true;
  vision?: true;
  reasoning?: true;
  stream: boolean;
  like?: string;
  quality?: number;
  gdpr?: true;
  description?: string;
}

/** The option behind each field of the API's body, so a refusal names what the operator typed. */
const OPTION_FOR_FIELD: Record<string, string> = {
  model: '--name',
  base_url: '--base-url',
  namespace: '--upstream-model',
  provider: '--provider',
  api_key: '--api-key-env',
  'prices.prompt_per_1m': '--prompt-price',
  'prices.completion_per_1m': '--completion-price',
  context_window: '--context-window',
  quality: '--like or --quality',
  'quality.like': '--like',
  'quality.overall': '--quality',
};

function withOption(err: unknown): unknown {
  if (!(err instanceof ApiError) || err.param === null || !OPTION_FOR_FIELD[err.param]) return err;
  return new ApiError(err.code, `${err.message} (option ${OPTION_FOR_FIELD[err.param]})`, err.param);
}

function parseDecimal(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number)) throw new InvalidArgumentError('It must be a number.');
  return number;
}

/** The organization the command acts in: given, or the one of the Space named. */
async function ownerOrg(ctx: CliContext, options: OwnerOptions): Promise<string> {
  if (options.space) return (await findSpace(ctx.session.db(), { space: options.space, orgId: options.orgId })).org_id;
  if (options.orgId) return options.orgId;
  throw new ApiError('missing_field', 'Name the organization with --org-id <uuid> or --space <id|name>.', 'org_id');
}

/** A key is read from the environment, never from the command line (where shell history and `ps` would keep it). */
function apiKeyFrom(variable: string | undefined): string | undefined {
  if (variable === undefined) return undefined;
  const value = process.env[variable];
  if (!value) throw new ApiError('invalid_value', `The environment variable ${variable} (--api-key-env) is not set or empty.`, 'api_key');
  return value;
}

/** The same body POST /v1/custom_models takes, validated by the same schema. */
function bodyOf(options: AddOptions) {
  const quality = options.like !== undefined ? { like: options.like } : options.quality !== undefined ? { overall: options.quality } : undefined;
  const parsed = createCustomModelBody.safeParse({
    model: options.name,
    provider: options.provider,
    namespace: options.upstreamModel,
    base_url: options.baseUrl,
    api_key: apiKeyFrom(options.apiKeyEnv),
    prices: { prompt_per_1m: options.promptPrice ?? 0, completion_per_1m: options.completionPrice ?? 0 },
    context_window: options.contextWindow,
    capabilities: {
      functions: options.functions === true,
      json: options.jsonMode === true,
      vision: options.vision === true,
      stream: options.stream,
      reasoning: options.reasoning === true,
    },
    quality,
    description: options.description,
    is_gdpr: options.gdpr === true,
  });
  if (!parsed.success) throw apiErrorFromZod(parsed.error);
  return parsed.data;
}

function formatCustomModel(model: CustomModelView): string {
  return formatFields([
    ['Id', model.id],
    ['Name', model.model],
    ['Provider', model.provider],
    ['Upstream model', model.namespace],
    ['Base URL', model.base_url],
    ['API key', model.has_api_key ? 'stored (sealed)' : 'none'],
  ]);
}

const ownerOptions = (command: Command) =>
  command
    .addOption(uuidOption('--org-id <uuid>', 'organization id'))
    .addOption(textOption('--space <id|name>', 'a Space of the organization (instead of --org-id)'))
    .addOption(jsonOption());

export function registerCustomModelCommands(models: Command, ctx: CliContext): void {
  const add = models
    .command('add-custom')
    .description("Add a model served by the organization's own OpenAI-compatible server (Ollama, vLLM, ...); then enable it in Spaces.")
    .addOption(textOption('--name <model>', 'name clients send as `model`').makeOptionMandatory())
    .addOption(textOption('--base-url <url>', 'base URL of the OpenAI-compatible API, e.g. http://gpu-box:8000/v1').makeOptionMandatory())
    .addOption(textOption('--upstream-model <name>', "the server's own model name").makeOptionMandatory())
    .addOption(new Option('--context-window <tokens>', 'tokens, prompt and completion together').argParser(parseDecimal).makeOptionMandatory())
    .addOption(new Option('--provider <kind>', 'server kind (default: openai-compatible)').choices(CUSTOM_MODEL_PROVIDERS))
    .addOption(textOption('--api-key-env <variable>', 'environment variable holding the API key (stored sealed)'))
    .addOption(new Option('--prompt-price <usd>', 'USD per 1M prompt tokens (default 0)').argParser(parseDecimal))
    .addOption(new Option('--completion-price <usd>', 'USD per 1M completion tokens (default 0)').argParser(parseDecimal))
    .addOption(textOption('--like <model>', 'route it with the quality profile of this model'))
    .addOption(new Option('--quality <probability>', 'or: its overall quality, 0 to 1').argParser(parseDecimal).conflicts('like'))
    .option('--functions', 'it takes tools (function calling)')
    .option('--json-mode', 'it takes response_format JSON mode')
    .option('--vision', 'it takes images')
    .option('--reasoning', 'it takes reasoning_effort (a reasoning model)')
    .option('--no-stream', 'it cannot stream')
    .option('--gdpr', 'processed under GDPR terms (privacy level 3 Spaces route only to such models)')
    .addOption(new Option('--description <text>').argParser(parseText));
  ownerOptions(add).action(async (options: AddOptions) => {
    const orgId = await ownerOrg(ctx, options);
    const created = await Promise.resolve()
      .then(() => cliServices.customModels(ctx.session).create({ orgId, addedBy: 'operator@cli' }, bodyOf(options)))
      .catch((err: unknown) => Promise.reject(withOption(err)));
    ctx.io.out(
      options.json ? jsonLine(created) : `${formatCustomModel(created)}Added; switch it on with \`models enable --space <space> ${created.model}\`.\n`,
    );
  });

  const remove = models
    .command('remove-custom')
    .description("Remove one of the organization's custom models, from every Space.")
    .argument('<name>', 'the custom model, by name');
  ownerOptions(remove).action(async (name: string, options: OwnerOptions) => {
    const orgId = await ownerOrg(ctx, options);
    const service = cliServices.customModels(ctx.session);
    const all = await service.list(orgId);
    const model = all.find((m) => m.model === name);
    if (!model)
      throw new ApiError(
        'not_found',
        `No custom model '${name}' in organization ${orgId}. ${closeNamesHint(
          name,
          all.map((m) => m.model),
          'models list --all --space <space>',
        )}`,
        'model',
      );
    const removed = await service.remove(orgId, model.id);
    ctx.io.out(options.json ? jsonLine({ ...removed, model: name }) : `Removed custom model ${name} (${model.id}).\n`);
  });
}
