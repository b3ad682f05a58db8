/**
 * The logger the HTTP layer writes to. An interface, so that the lead wires one logger
 * for the whole process and tests capture lines instead of printing them.
 */
export type LogFields = Readonly<Record<string, unknown>>;

export type Logger = {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
};

const levels = { error: 0, warn: 1, info: 2 } as const;
export type LogLevel = keyof typeof levels;

/** One JSON object per line on stderr, at or above `level`. */
export function jsonLogger(level: LogLevel = 'info', write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const max = levels[level];
  const emit = (lvl: LogLevel, message: string, fields?: LogFields): void => {
    if (levels[lvl] > max) return;
    const record = { time: new Date().toISOString(), level: lvl, msg: message, ...fields };
    // A log line must never throw: bigint fields become strings.
    write(JSON.stringify(record, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) + '\n');
  };
  return {
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}

/** Discards everything (benchmarks). */
export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
