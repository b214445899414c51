import type { Bindings, Logger } from 'pino';

const noop = () => undefined;

/** What a lazy child answers for this key: the logger its chain of lazy children started from. */
const ROOT: unique symbol = Symbol('lazy child root');

/** The logger a lazy child was asked of, through any lazy children: it says which levels are logged without making one. */
function rootOf(logger: Logger): Logger {
  return (logger as Logger & { [ROOT]?: Logger })[ROOT] ?? logger;
}

/**
 * A child logger made when a line is first logged through it. pino builds a child's bindings (and its
 * redaction) at once, ~9 µs per child measured: a request that logs nothing paid that for nothing. A
 * level not logged costs no child at all. The root is answered by the proxy itself (a WeakMap from
 * each lazy child to its root cost an entry per request for the collector to sweep).
 */
export function lazyChild(parent: Logger, bindings: Bindings): Logger {
  const root = rootOf(parent);
  let child: Logger | undefined;
  const made = () => (child ??= parent.child(bindings));
  return new Proxy(parent, {
    get(_target, property) {
      if (property === ROOT) return root;
      if (!child && typeof property === 'string' && property in root.levels.values && !root.isLevelEnabled(property)) return noop;
      const logger = made();
      const value: unknown = Reflect.get(logger, property);
      return typeof value === 'function' ? value.bind(logger) : value;
    },
    set(_target, property, value) {
      return Reflect.set(made(), property, value);
    },
  });
}
