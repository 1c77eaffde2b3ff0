/** The audit surface's query parameters, validated (400 with the field and the reason). */
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Matches, Max, Min, ValidateBy } from 'class-validator';
import { EVENT_TYPES } from '@shoal/contracts';
import type { VerdictStatus } from '@shoal/domain';

const VERDICT_STATUSES: VerdictStatus[] = ['applied', 'partial', 'rejected', 'poison'];

export const MAX_PAGE = 1_000;
export const DEFAULT_PAGE = 100;

export class AuditEventsQuery {
  @ApiPropertyOptional({ description: 'The first offset to list (default 0).', minimum: 0 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'must be a non-negative integer offset' })
  @Min(0, { message: 'must be a non-negative integer offset' })
  from?: number;

  @ApiPropertyOptional({ description: `How many records at most (default ${DEFAULT_PAGE}).`, minimum: 1, maximum: MAX_PAGE })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: `must be an integer from 1 to ${MAX_PAGE}` })
  @Min(1, { message: `must be an integer from 1 to ${MAX_PAGE}` })
  @Max(MAX_PAGE, { message: `must be an integer from 1 to ${MAX_PAGE}` })
  limit?: number;

  @ApiPropertyOptional({ description: 'Only records of this event type.', enum: Object.keys(EVENT_TYPES) })
  @IsOptional()
  @IsIn(Object.keys(EVENT_TYPES), { message: 'must be an event type: one of $constraint1' })
  type?: string;

  @ApiPropertyOptional({ description: "Only records with this verdict.", enum: VERDICT_STATUSES })
  @IsOptional()
  @IsIn(VERDICT_STATUSES, { message: 'must be one of $constraint1' })
  verdict?: VerdictStatus;

  @ApiPropertyOptional({ description: 'Only records that touch this entity: a service, task, node, network or config id (or a service, node, network or config name, or a task id prefix), or the cluster id.' })
  @IsOptional()
  @IsString()
  @IsNotEmpty({ message: 'must not be empty' })
  entity?: string;
}

const OFFSET = /^\d+$/;
const isIsoTime = (value: string): boolean => /^\d{4}-\d{2}-\d{2}T/.test(value) && Number.isFinite(Date.parse(value));

export class AuditStateQuery {
  @ApiPropertyOptional({
    description: 'An offset (the state before the record at that offset) or an ISO 8601 time (the state after every record written by then). Default: now.',
    example: '42',
  })
  @IsOptional()
  @IsString()
  @ValidateBy({
    name: 'offsetOrTime',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && (OFFSET.test(value) || isIsoTime(value)),
      defaultMessage: () => 'must be an offset (a non-negative integer) or an ISO 8601 time',
    },
  })
  at?: string;
}

/** What `at` asks for: an offset, a time in ms, or now. */
export type StatePoint = { readonly offset: number } | { readonly time: number } | { readonly now: true };

export const statePoint = (at: string | undefined): StatePoint => {
  if (at === undefined) return { now: true };
  return OFFSET.test(at) ? { offset: Number(at) } : { time: Date.parse(at) };
};

/** What an id in a path is: 1–128 characters, no spaces or slashes. */
const ID_PATTERN = /^[^\s/]{1,128}$/;

/** The OpenAPI schema of an id in a path, the pattern IdParam checks. */
export const ID_PARAM_SCHEMA = { type: 'string', pattern: ID_PATTERN.source } as const;

/** An id in a path: non-empty, no control characters. */
export class IdParam {
  @IsString()
  @Matches(ID_PATTERN, { message: 'must be an id (1–128 characters, no spaces or slashes)' })
  id!: string;
}
