/**
 * Where the event log libraries' own lines go (a follower that stopped, the Kafka client's
 * errors). A process installs its logger here (libs/runtime's installProcessLogger); until
 * then a line goes to standard error as plain text.
 */
export type EventLogLevel = 'debug' | 'info' | 'warn' | 'error';
export type EventLogSink = (level: EventLogLevel, message: string, fields?: Readonly<Record<string, unknown>>) => void;

const toStderr: EventLogSink = (level, message) => void process.stderr.write(`[shoal] ${level}: ${message}\n`);
let sink: EventLogSink = toStderr;

/** Sends the event log's lines to `next` from now on (undefined: standard error again). */
export const setEventLogSink = (next: EventLogSink | undefined): void => {
  sink = next ?? toStderr;
};

/** One line of the event log's, to wherever the process sends them. */
export const eventLogSay: EventLogSink = (level, message, fields) => sink(level, message, fields);
