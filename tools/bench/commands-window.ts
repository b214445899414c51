import { runLoad, type LoadClient } from './load';
import { targetFor, type Endpoints } from './path-targets';
import { countCommands, type RedisCommands } from './redis-commands';
import { table, type Mode, type Path } from './report';

/**
 * Issue 34's goal: Switchyard's own Redis commands per completion (Lua's included) beyond BullMQ's job life,
 * measured as the Express floor's in the same run and mode (a BullMQ job, one reply, nothing else of Redis's).
 * Issue 22's "≤ 20 in all" was withdrawn: BullMQ's job life alone runs 34–42. And issue 22's busiest master's
 * share on a cluster.
 */
export const OWN_COMMANDS_GOAL = 5;
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

/** A row's commands per completion beyond the Express floor's in the same mode, when the run counted that floor. */
function beyondFloor(row: CommandsRow, rows: CommandsRow[]): number | undefined {
  const floor = rows.find((other) => other.path === 'express-floor' && other.mode === row.mode);
  return floor ? row.commands.perCompletion - floor.commands.perCompletion : undefined;
}
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
      'beyond the Express floor',
      `≤ ${OWN_COMMANDS_GOAL} beyond (Switchyard)`,
      'idle, per completion',
      'by command (per completion)',
    ],
    rows.map((row) => {
      const { path, mode, concurrency, commands } = row;
      const beyond = beyondFloor(row, rows);
      return [
        path,
        mode,
        concurrency,
        commands.completions,
        commands.perCompletion.toFixed(2),
        beyond === undefined || path === 'express-floor' ? '' : beyond.toFixed(2),
        isSwitchyard(row) && beyond !== undefined ? (beyond <= OWN_COMMANDS_GOAL ? 'PASS' : 'MISS') : '',
        commands.idlePerCompletion.toFixed(2),
        Object.entries(commands.byCommand)
          .filter(([, n]) => n >= 0.05)
          .map(([name, n]) => `${name} ${n}`)
          .join(', '),
      ];
    }),
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
export function commandGoals(rows: CommandsRow[]): { beyondFloor: number | undefined; maxShare: number | undefined } {
  const own = rows.filter(isSwitchyard);
  const clustered = own.filter((row) => row.commands.nodes.length > 1);
  const beyond = own.map((row) => beyondFloor(row, rows)).filter((n): n is number => n !== undefined);
  return {
    beyondFloor: beyond.length > 0 ? Math.max(...beyond) : undefined,
    maxShare: clustered.length > 0 ? Math.max(...clustered.map((row) => row.commands.maxShare)) : undefined,
  };
}
