/**
 * Validation for the API's inputs, answered as Docker answers bad input: 400 with
 * `{"message": "<field>: <reason>"}` — every failing field named, nested ones by path.
 */
import { BadRequestException, ValidationPipe } from '@nestjs/common';
import type { Type } from '@nestjs/common';
import type { ValidationError } from 'class-validator';

const describe = (errors: readonly ValidationError[], parent = ''): string[] =>
  errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((reason) => `${path}: ${reason}`);
    return [...own, ...describe(error.children ?? [], path)];
  });

/** The message Docker's error shape carries for these validation errors. */
export const validationMessage = (errors: readonly ValidationError[]): string => describe(errors).join('; ');

/** A 400 in Docker's error shape. */
export const badRequest = (message: string): BadRequestException => new BadRequestException({ message });

/** Validates and transforms into `dto`; every failure becomes one 400 naming the fields and reasons. */
export const dockerValidationPipe = (dto: Type): ValidationPipe =>
  new ValidationPipe({
    expectedType: dto,
    transform: true,
    forbidUnknownValues: false,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => badRequest(validationMessage(errors)),
  });
