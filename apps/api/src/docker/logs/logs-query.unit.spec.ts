import { BadInputError } from '@shoal/docker-api';
import { NO_STREAM, dockerBool, parseLogsQuery, parseSince, parseTail } from './logs-query';

describe("the logs endpoints' query", () => {
  it('reads what the docker CLI sends', () => {
    expect(parseLogsQuery({ stdout: '1', stderr: '1', details: '1', follow: '1', timestamps: '1', since: '1700000000.123456789', tail: '20' })).toEqual({
      options: { stdout: true, stderr: true, follow: true, tail: 20, sinceMs: 1_700_000_000_123 },
      timestamps: true,
      details: true,
    });
  });

  it('defaults to every line, not following, without timestamps or details', () => {
    expect(parseLogsQuery({ stderr: 'true' })).toEqual({
      options: { stdout: false, stderr: true, follow: false, tail: -1, sinceMs: 0 },
      timestamps: false,
      details: false,
    });
  });

  it("refuses a request for neither stream, in Docker's words", () => {
    expect(() => parseLogsQuery({})).toThrow(new BadInputError(NO_STREAM));
    expect(() => parseLogsQuery({ stdout: '0', stderr: 'false' })).toThrow(NO_STREAM);
    expect(NO_STREAM).toBe('Bad parameters: you must choose at least one stream');
  });

  it("reads booleans as Docker's BoolValue: only empty, 0, no, false and none are false", () => {
    for (const no of [undefined, '', '0', 'no', 'false', 'FALSE', ' none ']) expect(dockerBool(no)).toBe(false);
    for (const yes of ['1', 'true', 'yes', 'on', 'anything']) expect(dockerBool(yes)).toBe(true);
  });

  it('takes the first of a repeated parameter, as Go does', () => {
    expect(parseLogsQuery({ stdout: ['0', '1'], stderr: ['1'] }).options).toMatchObject({ stdout: false, stderr: true });
  });

  it('reads since as Unix seconds with an optional fraction of up to nine digits, in ms', () => {
    expect(parseSince(undefined)).toBe(0);
    expect(parseSince('')).toBe(0);
    expect(parseSince('0')).toBe(0);
    expect(parseSince('1700000000')).toBe(1_700_000_000_000);
    expect(parseSince('1700000000.5')).toBe(1_700_000_000_500);
    expect(parseSince('1700000000.000999999')).toBe(1_700_000_000_000);
    expect(parseSince('+1700000000.25')).toBe(1_700_000_000_250);
    expect(parseSince('-5')).toBe(0);
  });

  it('refuses a since that is not Unix seconds, naming the parameter and the form to use', () => {
    for (const bad of ['10m', '2026-01-01T00:00:00Z', '1700000000.', 'abc', '1e9', '99999999999999999999']) {
      expect(() => parseSince(bad)).toThrow(BadInputError);
      expect(() => parseSince(bad)).toThrow(/invalid value for "since".*Unix seconds/);
    }
  });

  it('reads tail as "all" (or nothing) for every line, else a number of lines', () => {
    expect(parseTail(undefined)).toBe(-1);
    expect(parseTail('')).toBe(-1);
    expect(parseTail('all')).toBe(-1);
    expect(parseTail('0')).toBe(0);
    expect(parseTail('25')).toBe(25);
  });

  it('refuses a tail that is not a number of lines, naming the parameter and what to give', () => {
    expect(() => parseTail('-1')).toThrow(/invalid value for "tail".*negative/);
    expect(() => parseTail('ten')).toThrow(/invalid value for "tail": "ten".*positive integer or "all"/);
    expect(() => parseTail('1.5')).toThrow(BadInputError);
    expect(() => parseLogsQuery({ stdout: '1', tail: 'ten' })).toThrow(BadInputError);
  });
});
