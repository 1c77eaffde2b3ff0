/**
 * kafkajs logs a lot, in JSON, at INFO by default. Shoal asks for ERROR and above unless told
 * otherwise, one line each through the event log's sink (the process's logger), and leaves out the error responses the connection
 * logs on its way (a heartbeat told to rejoin, a topic that already exists): the caller gets
 * each of those as an error and handles it, usually as routine.
 */
import { logLevel as LogLevel } from 'kafkajs';
import type { logCreator } from 'kafkajs';
import { eventLogSay } from '../log-sink';
import type { EventLogLevel } from '../log-sink';

export const DEFAULT_KAFKA_LOG_LEVEL = LogLevel.ERROR;

export const quietLogCreator: logCreator =
  () =>
  ({ namespace, label, log }) => {
    const { message, error } = log as { message: string; error?: unknown };
    if (namespace === 'Connection' && message.startsWith('Response ')) return;
    const detail = typeof error === 'string' && error !== message ? ` (${error})` : '';
    const level: EventLogLevel = label === 'ERROR' ? 'error' : label === 'WARN' ? 'warn' : label === 'INFO' ? 'info' : 'debug';
    eventLogSay(level, `${namespace}: ${message}${detail}`, { library: 'kafkajs' });
  };
