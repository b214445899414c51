import { loadConfig } from '../config/load';
import type { Config } from '../config/schema';
import { createDb, type Db } from '../store/db';

/** Where a command writes: stdout carries only the result, stderr everything else. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

/** One command runs at a time, so a couple of connections is plenty. */
const CLI_DB_CONNECTIONS = 2;

/** Reads the configuration and opens the database on first use, so `--help` and usage errors never connect. */
export class CliSession {
  private config: Readonly<Config> | null = null;
  private database: Db | null = null;

  constructor(private readonly readConfig: () => Readonly<Config> = loadConfig) {}

  db(): Db {
    this.config ??= this.readConfig();
    this.database ??= createDb(this.config.databaseUrl, CLI_DB_CONNECTIONS);
    return this.database;
  }

  /** Whether failures should carry their stack trace (`LOG_LEVEL=debug` or `trace`). */
  get verbose(): boolean {
    return this.config?.logLevel === 'debug' || this.config?.logLevel === 'trace';
  }

  /** Lets the process exit: an open pool would keep it alive. */
  async close(): Promise<void> {
    const database = this.database;
    this.database = null;
    await database?.$disconnect();
  }
}

export interface CliContext {
  session: CliSession;
  io: CliOutput;
}
