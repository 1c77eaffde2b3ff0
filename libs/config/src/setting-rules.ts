/**
 * The kinds of value a setting takes, as class-validator rules with class-transformer's
 * conversion: a value that reads as its kind is converted, anything else is left as it was
 * given so that the message can quote it. Every message names the variable and says what
 * to set; a setting's rules share one message, so it is listed once however many fail.
 * An unset setting (its default, or none) passes these; only a Rule sees it unset.
 */
import { isIP } from 'node:net';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, Matches, Max, Min, ValidateBy } from 'class-validator';
import type { ValidationArguments } from 'class-validator';

const compose =
  (...decorators: PropertyDecorator[]): PropertyDecorator =>
  (target, property) => {
    for (const decorator of decorators) decorator(target, property);
  };

const saying = (what: string) => ({ message: (args: ValidationArguments) => `${args.property} ${what}, not "${String(args.value)}"` });

const wholeNumber = Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value));

/** A whole number from `min` to `max` (digits only); `what` says so in the setting's own words. */
export const WholeNumber = (what: string, min = 0, max = Number.MAX_SAFE_INTEGER): PropertyDecorator => {
  const message = saying(what);
  return compose(wholeNumber, IsOptional(), IsInt(message), Min(min, message), Max(max, message));
};

/** A TCP port: 0–65535 (0: any free port). */
export const Port = (): PropertyDecorator => WholeNumber('must be a port number (0–65535)', 0, 65535);

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off']);

/** On or off: 1, true, yes, on; 0, false, no, off (any case). */
export const Flag = (): PropertyDecorator =>
  compose(
    Transform(({ value }: { value: unknown }) => {
      const text = typeof value === 'string' ? value.toLowerCase() : value;
      return typeof text === 'string' && TRUE.has(text) ? true : typeof text === 'string' && FALSE.has(text) ? false : value;
    }),
    IsOptional(),
    IsBoolean(saying('must be 1 or 0 (true or false)')),
  );

/** Kept in lower case. */
export const LowerCase = (): PropertyDecorator => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.toLowerCase() : value));

/** One of `values`; `lowerCase`: compared in lower case, as it is kept. */
export const OneOf = (values: readonly string[], options: { readonly lowerCase?: boolean } = {}): PropertyDecorator =>
  compose(
    ...(options.lowerCase ? [LowerCase()] : []),
    IsOptional(),
    IsIn([...values], saying(values.length === 2 ? `must be ${values[0]} or ${values[1]}` : `must be one of ${values.join(', ')}`)),
  );

/** host:port, an IPv6 host in brackets. */
export const HostPort = (): PropertyDecorator => compose(IsOptional(), Matches(/^(\[[^\]]+\]|[^:\s]+):\d+$/, saying('must be host:port')));

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** An address a listener can bind: an IP address or a host name. */
export const isBindAddress = (host: string): boolean => isIP(host) !== 0 || HOSTNAME.test(host);

export const BindAddress = (): PropertyDecorator =>
  compose(
    IsOptional(),
    ValidateBy({ name: 'bindAddress', validator: { validate: (value: unknown) => typeof value === 'string' && isBindAddress(value) } }, saying('must be an IP address or a host name to bind')),
  );

/** Comma-separated, each part trimmed, empty parts dropped. */
export const List = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string'
      ? value
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean)
      : value,
  );

/**
 * A rule between settings: `problem` sees this setting's value and all the others, and says
 * what is wrong (naming the variables and what to set), or nothing. Runs when it is unset too.
 */
export const Rule = <T extends object>(name: string, problem: (value: unknown, settings: T) => string | undefined): PropertyDecorator =>
  ValidateBy({
    name,
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => problem(value, args?.object as T) === undefined,
      defaultMessage: (args?: ValidationArguments) => problem(args?.value, args?.object as T) ?? '',
    },
  });
