import { runLoad, type LoadClient } from './load';
import { targetFor, type Endpoints } from './path-targets';
import { countCommands, type RedisCommands } from './redis-commands';
import { table, type Mode, type Path } from './report';

/** Issue 22's goals: Redis commands per completion (Lua's included), and the busiest master's share on a cluster. */
export const COMMANDS_GOAL = 20;
export const MASTER_SHARE_GOAL = 0.45;

/** A path whose Redis commands are counted, and the servers they land on. */
export interface CountedPath {
  path: Path;
  nodes: string[];
}

export interface CommandsRow {
  path: Path;
  mode: Mode;
  concurrency: number;
  commands: RedisCommands;
}

/**
 * The counting window: for each mode and path, `completions` completions at `concurrency` clients after the
 * cells (not during a timed cell: the readings and the idle second would skew it), with the servers'
 * `INFO commandstats` read before and after. The other paths are idle meanwhile.
 */
export async function countCommandsPerPath(
  owners: CountedPath[],
  options: { modes: Mode[]; endpoints: Endpoints; completions: number; concurrency: number; client: LoadClient },
): Promise<CommandsRow[]> {
  const rows: CommandsRow[] = [];
  if (options.completions <= 0) return rows;
  for (const mode of options.modes) {
    for (const owner of owners) {
      const target = targetFor(owner.path, mode, options.endpoints);
      const load = async () =>
        (
          await runLoad(target, {
            concurrency: options.concurrency,
            durationMs: 120_000,
            maxRequests: options.completions,
            timeoutMs: 30_000,
            client: options.client,
          })
        ).requests;
      rows.push({ path: owner.path, mode, concurrency: options.concurrency, commands: await countCommands(owner.nodes, load) });
    }
  }
  return rows;
}

const isSwitchyard = (row: CommandsRow) => row.path === 'switchyard';
const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

/** One row per path and mode: commands per completion, the idle estimate, the most frequent commands. */
export function commandsTable(rows: CommandsRow[]): string {
  return table(
    [
      'path',
      'mode',
      'clients',
      'completions',
      'commands per completion',
      `≤ ${COMMANDS_GOAL} (Switchyard)`,
      'idle, per completion',
      'by command (per completion)',
    ],
    rows.map(({ path, mode, concurrency, commands }) => [
      path,
      mode,
      concurrency,
      commands.completions,
      commands.perCompletion.toFixed(2),
      path === 'switchyard' ? (commands.perCompletion <= COMMANDS_GOAL ? 'PASS' : 'MISS') : '',
      commands.idlePerCompletion.toFixed(2),
      Object.entries(commands.byCommand)
        .filter(([, n]) => n >= 0.05)
        .map(([name, n]) => `${name} ${n}`)
        .join(', '),
    ]),
  );
}

/** Rows counted on more than one server (a cluster): each master's commands, share and CPU. */
export function mastersTable(rows: CommandsRow[]): string {
  const clustered = rows.filter((row) => row.commands.nodes.length > 1);
  if (clustered.length === 0) return '';
  return table(
    ['path', 'mode', 'master', 'commands', 'share', 'Redis CPU ms per completion', `max share ≤ ${percent(MASTER_SHARE_GOAL)}`],
    clustered.flatMap(({ path, mode, commands }) =>
      commands.nodes.map((node, i) => [
        path,
        mode,
        node.node.replace('redis://', ''),
        node.commands,
        percent(node.share),
        node.cpuMsPerCompletion.toFixed(3),
        i === 0 ? (commands.maxShare <= MASTER_SHARE_GOAL ? 'PASS' : 'MISS') : '',
      ]),
    ),
  );
}

/** The goals' measured values: the worst of Switchyard's modes; the master share only where counted on a cluster. */
export function commandGoals(rows: CommandsRow[]): { perCompletion: number | undefined; maxShare: number | undefined } {
  const own = rows.filter(isSwitchyard);
  const clustered = own.filter((row) => row.commands.nodes.length > 1);
  return {
    perCompletion: own.length > 0 ? Math.max(...own.map((row) => row.commands.perCompletion)) : undefined,
    maxShare: clustered.length > 0 ? Math.max(...clustered.map((row) => row.commands.maxShare)) : undefined,
  };
}
