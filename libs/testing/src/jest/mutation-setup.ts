/**
 * Set up before each spec file of a mutation run (jest.mutation.config.js). A property that a
 * mutant breaks has killed it at its first counterexample: shrinking that counterexample
 * would only make the run slower (and turn kills into timeouts).
 */
import fc from 'fast-check';

fc.configureGlobal({ ...fc.readConfigureGlobal(), endOnFailure: true });
