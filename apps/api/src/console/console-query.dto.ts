/** The console's query parameters, validated (400 naming the field and the reason). */
import { ApiProperty } from '@nestjs/swagger';
import { ValidateBy } from 'class-validator';

const OFFSET = /^\d+$/;
const isIsoTime = (value: string): boolean => /^\d{4}-\d{2}-\d{2}T/.test(value) && Number.isFinite(Date.parse(value));

/** Required: an offset (the state before the record there) or an ISO 8601 time, as the audit's `at` takes. */
const OffsetOrTime = (): PropertyDecorator =>
  ValidateBy({
    name: 'offsetOrTime',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && (OFFSET.test(value) || isIsoTime(value)),
      defaultMessage: (args) =>
        args?.value === undefined ? 'is required: an offset or an ISO 8601 time' : 'must be an offset (a non-negative integer) or an ISO 8601 time',
    },
  });

export class ConsoleDiffQuery {
  @ApiProperty({ description: 'The earlier point: an offset (the state before the record there) or an ISO 8601 time.', example: '12' })
  @OffsetOrTime()
  from!: string;

  @ApiProperty({ description: 'The later point: an offset or an ISO 8601 time.', example: '40' })
  @OffsetOrTime()
  to!: string;
}
