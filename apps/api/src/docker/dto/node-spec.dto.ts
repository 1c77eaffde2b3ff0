/** Docker's NodeSpec (node update body), validated. */
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsObject, IsOptional, IsString } from 'class-validator';
import { NODE_AVAILABILITIES, NODE_ROLES } from '@shoal/contracts';

export class NodeSpecDto {
  @ApiPropertyOptional()
  @IsOptional() @IsString()
  Name?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional() @IsObject()
  Labels?: Record<string, string>;

  @ApiPropertyOptional({ enum: NODE_ROLES })
  @IsOptional() @IsIn([...NODE_ROLES])
  Role?: string;

  @ApiPropertyOptional({ enum: NODE_AVAILABILITIES })
  @IsOptional() @IsIn([...NODE_AVAILABILITIES])
  Availability?: string;
}
