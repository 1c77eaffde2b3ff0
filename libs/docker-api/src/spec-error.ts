import { BadInputError } from './bad-input';

/** A Docker spec Shoal cannot accept: the field (Docker's path) and why. Answered as 400. */
export class SpecError extends BadInputError {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`invalid ${field}: ${reason}`);
    this.name = 'SpecError';
  }
}
