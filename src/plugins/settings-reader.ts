import type { z } from 'zod';

/**
 * A plugin's reading of its per-Space settings. The runner hands every call the settings it parsed
 * once per Space snapshot, the same object each time, so each object is read once here too and its
 * reading kept beside it (for as long as the object lives): nothing parses a Space's configuration again
 * on the hot path. Anything else (a test's `{}`, no settings at all) is parsed as it comes.
 */
export function settingsReader<T extends z.ZodType>(schema: T): (settings: unknown) => z.infer<T> {
  const readings = new WeakMap<object, z.infer<T>>();
  return (settings) => {
    if (settings === null || settings === undefined || typeof settings !== 'object') return schema.parse(settings ?? {});
    const known = readings.get(settings);
    if (known !== undefined) return known;
    const reading = schema.parse(settings);
    readings.set(settings, reading);
    return reading;
  };
}
