/** Input the API refuses (a spec it cannot accept, a filter it does not know): answered 400. */
export class BadInputError extends Error {}
