import os from 'node:os';

/** The machine the figures come from; other work on it skews them, so the load average is kept too. */
export function machineInfo() {
  const cpus = os.cpus();
  return {
    cpu_model: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memory_gib: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    date: new Date().toISOString(),
    load_average_at_start: os.loadavg().map((l) => Number(l.toFixed(2))),
  };
}
