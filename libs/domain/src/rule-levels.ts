/** Whether evolve applies a rule that came with a log level (RULE_LEVELS in @shoal/contracts). */
import type { ClusterState } from './state';

/** On a log below the rule's level, evolve rules as the builds before it did. */
export const ruleApplies = (state: ClusterState, level: number): boolean => (state.cluster?.logLevel ?? 1) >= level;
