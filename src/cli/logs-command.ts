import { privacyPolicyOf } from '../domain/privacy-policy';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { ApiError } from '../errors/api-error';
import type { LogView } from '../schemas/logs';
import type { LogCursor } from '../store/logs';
import { listOrganizations } from '../store/organization-list';
import { cliServices } from './cli-services';
import type { CliContext } from './context';
import { operatorAuth } from './operator-auth';
import { parseWholeNumber, textOption, uuidOption } from './options';
import { findSpace } from './space-ref';

interface TailOptions {
  space?: string;
  orgId?: string;
  follow?: true;
  json?: true;
  lines: number;
  intervalMs: number;
  settleMs: number;
}

/** Most logs one read returns; a poll reads page after page until it has caught up. */
const POLL_PAGE = 100;
/** How long, by default, a log may take to commit after its `added_on` (ms): see `--settle-ms`. */
const DEFAULT_SETTLE_MS = 2000;
/** Characters of the prompt and the answer a human line shows. */
const SNIPPET_CHARS = 60;

function snippet(text: string | null): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS - 1)}…` : flat;
}

/**
 * One line per log. Content is shown only as the logs API shows it: a level 2 log was stored masked
 * and says so, a level 3 log is never listed at all.
 */
export function formatLogLine(log: LogView): string {
  const when = new Date(log.timestamp).toISOString();
  const cost = log.total_tokens_cost === null ? '-' : `$${log.total_tokens_cost.toFixed(6)}`;
  const content = !privacyPolicyOf(log.privacy_level).masksContent
    ? `${JSON.stringify(snippet(log.prompt))} -> ${JSON.stringify(snippet(log.response_text))}`
    : `[privacy level ${log.privacy_level}: content not kept]`;
  const fields = [
    when,
    String(log.status_code),
    log.model?.model ?? '-',
    `space=${log.app_id ?? '-'}`,
    log.latency === null ? 'latency=-' : `${Math.round(log.latency)}ms`,
    `tokens=${log.total_tokens ?? '-'}`,
    cost,
    content,
  ];
  return `${fields.join('  ')}\n`;
}

/** The organization whose logs are read: the Space's, the one given, or the only one there is. */
async function tailScope(ctx: CliContext, options: TailOptions): Promise<{ orgId: string; appId?: string }> {
  if (options.space) {
    const space = await findSpace(ctx.session.db(), { space: options.space, orgId: options.orgId });
    return { orgId: space.org_id, appId: space.id };
  }
  if (options.orgId) return { orgId: options.orgId };
  const orgs = await listOrganizations(ctx.session.db());
  if (orgs.length === 1 && orgs[0]) return { orgId: orgs[0].id };
  throw new ApiError(
    'missing_field',
    `This service has ${orgs.length} organizations: name one with --org-id <uuid> (see \`orgs list\`) or a Space with --space.`,
    'org_id',
  );
}

function parseLines(value: string): number {
  const lines = parseWholeNumber(value);
  if (lines < 1 || lines > POLL_PAGE) throw new InvalidArgumentError(`It must be from 1 to ${POLL_PAGE}.`);
  return lines;
}

/** Where a follower stands after printing `log`. */
function cursorOf(log: LogView): LogCursor {
  return { addedOn: new Date(log.added_on ?? 0), id: log.id };
}

/**
 * `--follow` prints each log once, in (added_on, id) order, through a cursor: each poll prints the logs
 * strictly after the last one printed. `added_on` is stamped when a log's INSERT starts, so a log may
 * commit after one stamped later; a follower that printed the later one first would skip it. So a
 * follower only prints logs stamped more than `settleMs` ago by the database's clock: by then every
 * log stamped before has committed (an INSERT of logs takes milliseconds), so the cursor never passes
 * a log still to come (no gaps) and never goes back (no duplicates). New logs show `settleMs` late.
 */
async function tail(ctx: CliContext, options: TailOptions): Promise<void> {
  const scope = await tailScope(ctx, options);
  const service = cliServices.logs(ctx.session);
  const auth = operatorAuth(scope.orgId);
  const print = (log: LogView) => ctx.io.out(options.json ? `${JSON.stringify(log)}\n` : formatLogLine(log));
  const settled = options.follow ? await service.settledBefore(options.settleMs) : undefined;
  const first = (await service.list(auth, { limit: options.lines, app_id: scope.appId, include_children: false, created_before: settled })).data.reverse();
  first.forEach(print);
  if (!options.follow || !settled) return;
  const last = first.at(-1);
  let cursor: LogCursor = last ? cursorOf(last) : { addedOn: settled, id: null };
  while (!ctx.signal?.aborted) {
    try {
      await sleep(options.intervalMs, undefined, { signal: ctx.signal });
    } catch {
      break;
    }
    const before = await service.settledBefore(options.settleMs);
    for (;;) {
      const fresh = await service.listAfter(auth, { app_id: scope.appId, after: cursor, before, limit: POLL_PAGE });
      fresh.forEach(print);
      const newest = fresh.at(-1);
      if (newest) cursor = cursorOf(newest);
      if (fresh.length < POLL_PAGE || ctx.signal?.aborted) break;
    }
  }
}

export function registerLogCommands(program: Command, ctx: CliContext): void {
  const logs = program.command('logs').description('Request logs, as GET /v1/logs shows them (same privacy rules).');
  logs
    .command('tail')
    .description('Print the newest logs, oldest first; with --follow, keep printing new ones as they are written (Ctrl-C ends).')
    .addOption(textOption('--space <id|name>', 'only this Space'))
    .addOption(uuidOption('--org-id <uuid>', "organization (default: the Space's, or the only one)"))
    .option('-f, --follow', 'keep printing new logs')
    .addOption(new Option('-n, --lines <count>', 'how many logs to print first').argParser(parseLines).default(10))
    .addOption(new Option('--interval-ms <ms>', 'how often --follow looks for new logs').argParser(parseWholeNumber).default(1000))
    .addOption(
      new Option('--settle-ms <ms>', 'with --follow, how old a log must be to be printed, so that none committed late is skipped')
        .argParser(parseWholeNumber)
        .default(DEFAULT_SETTLE_MS),
    )
    .option('--json', "one JSON object per line: the API's Log")
    .action((options: TailOptions) => tail(ctx, options));
}
