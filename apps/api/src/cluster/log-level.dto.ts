/** The body of POST /shoal/v1/log-level, validated (400 with the field and the reason). */
import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Min } from 'class-validator';

export class RaiseLogLevel {
  @ApiProperty({ description: 'The level to raise the log to: one above the current one.', minimum: 2 })
  @IsInt({ message: 'must be an integer log level' })
  @Min(2, { message: 'must be at least 2 (every log starts at level 1)' })
  level!: number;
}
