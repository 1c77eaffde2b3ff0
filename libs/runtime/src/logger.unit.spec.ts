import { Logger as NestLogger } from '@nestjs/common';
import { eventLogSay, setEventLogSink } from '@shoal/eventlog';
import { PinoNestLogger, createLogger, installProcessLogger, logLevelFromEnv, prettyLine, withoutEscapes } from './logger';

/** A destination that keeps what it was given, as a file (isTTY false) or a terminal. */
const captured = (isTTY: boolean): { output: { isTTY: boolean; write(text: string): boolean }; text: () => string; lines: () => Record<string, unknown>[] } => {
  const chunks: string[] = [];
  return {
    output: { isTTY, write: (text: string) => chunks.push(text) > 0 },
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
};

// eslint-disable-next-line no-control-regex
const ESCAPE = /\u001b/;

describe('the logger', () => {
  afterEach(() => setEventLogSink(undefined));

  it('writes one JSON object a line when not on a terminal: time, level, component, instance, message and the fields given', () => {
    const out = captured(false);
    const logger = createLogger({ component: 'scheduler', instance: 'scheduler-a1', level: 'info', output: out.output });
    logger.info({ offset: 42, eventId: 'e-1' }, 'assigned 3 tasks');
    logger.debug('not at info');
    logger.warn('careful');
    const [first, second, ...rest] = out.lines();
    expect(rest).toEqual([]);
    expect(first).toEqual({ level: 'info', time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), component: 'scheduler', instance: 'scheduler-a1', offset: 42, eventId: 'e-1', msg: 'assigned 3 tasks' });
    expect(second).toMatchObject({ level: 'warn', msg: 'careful' });
  });

  it('leaves no terminal escape in a file, even one a message carried', () => {
    const out = captured(false);
    const logger = createLogger({ component: 'agent', level: 'info', output: out.output });
    logger.info('\u001b[31mred\u001b[0m task output \u001b]0;title\u0007done');
    expect(out.text()).not.toMatch(ESCAPE);
    expect(out.lines()[0]).toMatchObject({ msg: 'red task output done' });
    expect(withoutEscapes('\u001b[1;32mok\u001b[0m')).toBe('ok');
  });

  it('colours the line on a terminal, with the fields after the message', () => {
    const out = captured(true);
    createLogger({ component: 'api', level: 'info', output: out.output }).error({ offset: 7 }, 'boom');
    const text = out.text();
    expect(text).toMatch(ESCAPE);
    expect(text).toContain('\u001b[31mERROR');
    expect(withoutEscapes(text)).toMatch(/^\d\d:\d\d:\d\d\.\d{3} ERROR api boom offset=7\n$/);
    expect(text.split('\n')).toHaveLength(2);
    expect(prettyLine('not json\n')).toBe('not json\n');
  });

  it('takes its level from SHOAL_LOG_LEVEL, and refuses a value that is not a level, naming the variable', () => {
    expect(logLevelFromEnv({})).toBe('info');
    expect(logLevelFromEnv({ SHOAL_LOG_LEVEL: ' DEBUG ' })).toBe('debug');
    expect(() => logLevelFromEnv({ SHOAL_LOG_LEVEL: 'loud' })).toThrow('SHOAL_LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, not "loud"');
    const out = captured(false);
    createLogger({ component: 'reaper', level: logLevelFromEnv({ SHOAL_LOG_LEVEL: 'warn' }), output: out.output }).info('quiet');
    expect(out.text()).toBe('');
  });

  it("backs Nest's Logger: context, object messages with their fields, errors with their stack, Nest's own start-up lines at debug", () => {
    const out = captured(false);
    const nest = new PinoNestLogger(createLogger({ component: 'dispatcher', level: 'info', output: out.output }));
    nest.log('active under term 3', 'dispatcher');
    nest.log({ msg: 'agents on 127.0.0.1:2377', address: '127.0.0.1:2377' }, 'dispatcher');
    nest.error('append failed', 'Error: append failed\n    at x', 'scheduler');
    nest.log('Mapped {/healthz, GET} route', 'RouterExplorer');
    expect(out.lines()).toEqual([
      expect.objectContaining({ level: 'info', context: 'dispatcher', msg: 'active under term 3' }),
      expect.objectContaining({ level: 'info', context: 'dispatcher', msg: 'agents on 127.0.0.1:2377', address: '127.0.0.1:2377' }),
      expect.objectContaining({ level: 'error', context: 'scheduler', msg: 'append failed', stack: 'Error: append failed\n    at x' }),
    ]);
  });

  it("installed for a process, takes Nest's Logger and the event log's lines", () => {
    const out = captured(false);
    installProcessLogger('allocator', { level: 'info', output: out.output });
    try {
      new NestLogger('allocator').warn('lost ownership: lease expired');
      eventLogSay('error', 'a follower of the Kafka log stopped: gone', { library: 'kafkajs' });
    } finally {
      NestLogger.overrideLogger(true as never);
    }
    expect(out.lines()).toEqual([
      expect.objectContaining({ level: 'warn', component: 'allocator', context: 'allocator', msg: 'lost ownership: lease expired' }),
      expect.objectContaining({ level: 'error', component: 'allocator', context: 'eventlog', library: 'kafkajs', msg: 'a follower of the Kafka log stopped: gone' }),
    ]);
  });
});
