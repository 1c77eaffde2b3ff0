/**
 * Docker's ConfigSpec (`docker config create`, and the body of a config update), validated:
 * 400 with the field and the reason. What needs more than the body (the size, templating,
 * what an update may change) is the mapper's.
 */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, ValidateBy } from 'class-validator';
import { CONFIG_NAME_PATTERN, MAX_CONFIG_NAME_LENGTH, isBase64 } from '@shoal/contracts';

/** Docker's reason for a name it refuses, or undefined for a good one. */
export const configNameProblem = (value: unknown): string | undefined => {
  if (value === undefined || value === null || value === '') return 'a config name is required';
  if (typeof value !== 'string') return 'must be a string';
  if (value.length > MAX_CONFIG_NAME_LENGTH || !CONFIG_NAME_PATTERN.test(value)) {
    return `"${value}" is not a valid config name: only ${MAX_CONFIG_NAME_LENGTH} [a-zA-Z0-9-_.] characters allowed, and the start and end character must be [a-zA-Z0-9]`;
  }
  return undefined;
};

export class ConfigSpecDto {
  @ApiProperty({ example: 'app-conf', description: `At most ${MAX_CONFIG_NAME_LENGTH} of [a-zA-Z0-9-_.], starting and ending with a letter or digit; unique` })
  @ValidateBy({
    name: 'configName',
    validator: {
      validate: (value: unknown) => configNameProblem(value) === undefined,
      defaultMessage: (args) => configNameProblem(args?.value) ?? 'is not a valid config name',
    },
  })
  Name!: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsObject()
  Labels?: Record<string, string>;

  @ApiPropertyOptional({ description: "The file's bytes, base64. Required to create; an update may leave it out (it cannot change it)." })
  @IsOptional()
  @ValidateBy({
    name: 'base64',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && isBase64(value),
      defaultMessage: () => 'must be base64 (the standard alphabet, padded with "=")',
    },
  })
  Data?: string;

  @ApiPropertyOptional({ description: 'Not supported by Shoal: a config is given to tasks as it is' })
  @IsOptional()
  Templating?: unknown;
}
