/**
 * Every line a Shoal process logs goes through here: pino, one JSON object a line —
 * `time` (ISO), `level` (its name), `component`, `instance`, `msg`, and `offset`,
 * `eventId`, `term` where one applies — or, on a terminal, the same as one coloured line.
 * No terminal escapes ever reach a file or a pipe: the text of a message (a library's, a
 * task's) is stripped of them unless the line goes to a terminal. The level comes from one
 * setting, SHOAL_LOG_LEVEL (trace, debug, info, warn, error, fatal, silent; default info).
 *
 * Nest's Logger is backed by the same logger (installProcessLogger), and so are the log
 * libraries' own lines (the eventlog's sink).
 */
import { Logger as NestLogger } from '@nestjs/common';
import { shoalSettings } from '@shoal/config';
import type { ShoalLogLevel } from '@shoal/config';
import type { LogLevel as NestLogLevel, LoggerService } from '@nestjs/common';
import { setEventLogSink } from '@shoal/eventlog';
import pino from 'pino';
import type { DestinationStream, Level, Logger } from 'pino';
import { traceFields } from './tracing/trace-fields';

export type { Logger } from 'pino';

/**
 * SHOAL_LOG_LEVEL, with the rest of the environment checked: a bad value stops the start
 * with what to set (the logger is a process's first reader of its settings).
 */
export const logLevelFromEnv = (env: NodeJS.ProcessEnv = process.env): ShoalLogLevel => shoalSettings(env).SHOAL_LOG_LEVEL;

// CSI and OSC sequences, and the lone escapes and C1 controls around them.
// eslint-disable-next-line no-control-regex
const TERMINAL_ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-_]|[\u0080-\u009f]/g;

/** `text` without terminal escapes (colours, cursor moves, titles). */
export const withoutEscapes = (text: string): string => text.replace(TERMINAL_ESCAPES, '');

const COLOURS: Readonly<Record<string, string>> = { trace: '90', debug: '36', info: '32', warn: '33', error: '31', fatal: '35' };
const FIXED = new Set(['time', 'level', 'component', 'instance', 'msg', 'pid', 'hostname']);

/** One JSON line as a terminal shows it: time, coloured level, component, message, then the other fields. */
export const prettyLine = (line: string): string => {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const level = String(entry.level ?? 'info');
  const colour = COLOURS[level] ?? '0';
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 23) : '';
  const who = [entry.component, entry.instance].filter((part) => typeof part === 'string' && part !== '').join(' ');
  const rest = Object.entries(entry)
    .filter(([key]) => !FIXED.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  return `\u001b[90m${time}\u001b[0m \u001b[${colour}m${level.toUpperCase().padEnd(5)}\u001b[0m \u001b[1m${who}\u001b[0m ${String(entry.msg ?? '')}${rest ? ` \u001b[90m${rest}\u001b[0m` : ''}\n`;
};

/** Where lines go: a terminal gets them coloured, anything else (a file, a pipe) the JSON. */
export interface LogOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

export interface LoggerOptions {
  readonly component: string;
  readonly instance?: string;
  /** Default: SHOAL_LOG_LEVEL. */
  readonly level?: ShoalLogLevel;
  /** Default: standard output. */
  readonly output?: LogOutput;
}

/** A logger for `component`: JSON lines, or coloured ones on a terminal. */
export const createLogger = ({ component, instance, level = logLevelFromEnv(), output = process.stdout }: LoggerOptions): Logger => {
  const tty = output.isTTY === true;
  const destination: DestinationStream = { write: (line: string) => void output.write(tty ? prettyLine(line) : line) };
  return pino(
    {
      level,
      base: { component, ...(instance ? { instance } : {}) },
      timestamp: pino.stdTimeFunctions.isoTime,
      // The active span's ids, when a line is written within one (tracing on).
      mixin: traceFields,
      formatters: { level: (label) => ({ level: label }) },
      hooks: {
        logMethod(args, method) {
          // A message's text may come from anywhere (a library, a task, a peer): no escapes in a file.
          const clean = args.map((arg) => (typeof arg === 'string' && !tty ? withoutEscapes(arg) : arg)) as Parameters<typeof method>;
          method.apply(this, clean);
        },
      },
    },
    destination,
  );
};

const NEST_LEVELS: Readonly<Record<NestLogLevel, Level>> = { verbose: 'trace', debug: 'debug', log: 'info', warn: 'warn', error: 'error', fatal: 'fatal' };

/** Nest's own start-up chatter (modules loaded, routes mapped): debug, not info. */
const NEST_INTERNALS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication', 'NestMicroservice']);

/**
 * Nest's LoggerService on a pino logger: Nest's context becomes `context`, an error's stack
 * `stack`, an object message its fields (`msg` its text), and Nest's own start-up lines debug.
 */
export class PinoNestLogger implements LoggerService {
  constructor(readonly logger: Logger) {}

  private write(level: NestLogLevel, message: unknown, params: unknown[]): void {
    const context = typeof params[params.length - 1] === 'string' ? (params.pop() as string) : undefined;
    const stack = level === 'error' && typeof params[0] === 'string' ? (params.shift() as string) : undefined;
    const fields = { ...(context ? { context } : {}), ...(stack ? { stack } : {}) };
    const to = level === 'log' && context !== undefined && NEST_INTERNALS.has(context) ? 'debug' : NEST_LEVELS[level];
    if (message instanceof Error) this.logger[to]({ ...fields, err: message }, message.message);
    else if (typeof message === 'object' && message !== null) this.logger[to]({ ...fields, ...message });
    else this.logger[to](fields, String(message));
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write('log', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('verbose', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }
  /** SHOAL_LOG_LEVEL rules: Nest's own list of levels does not narrow it further here. */
  setLogLevels(): void {}
}

let processLogger: Logger | undefined;

/**
 * The process's logger once installed; before that (a library used by a command whose
 * standard output is its answer), one for "shoal" on standard error.
 */
export const shoalLogger = (): Logger => {
  if (!processLogger) {
    // A bad setting stops a process at its start (installProcessLogger); a library's line is not the place.
    let level: ShoalLogLevel = 'info';
    try {
      level = logLevelFromEnv();
    } catch {
      // keep info
    }
    processLogger = createLogger({ component: 'shoal', level, output: process.stderr });
  }
  return processLogger;
};

/**
 * Makes `component`'s logger the process's: Nest's Logger writes through it (every
 * `new Logger(context)`), and so does the event log library. Returns it.
 */
export const installProcessLogger = (component: string, options: Omit<LoggerOptions, 'component'> = {}): Logger => {
  const logger = createLogger({ component, ...options });
  processLogger = logger;
  NestLogger.overrideLogger(new PinoNestLogger(logger));
  setEventLogSink((level, message, fields) => logger[level]({ ...fields, context: 'eventlog' }, message));
  return logger;
};
