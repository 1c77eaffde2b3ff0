/**
 * evolve: the one state transition every process shares. It is deterministic (no clock,
 * no randomness, no I/O: time and ids come in the event), total (it never throws) and
 * the plan applier of the whole system: a proposal whose preconditions fail is rejected
 * here, identically in every process, and changes nothing.
 *
 * For speed on long replays the state is updated in place: the caller owns it (a view,
 * a replay). A rejected record leaves it exactly as it was; `replay` gives a fresh state.
 */
import { EVENT_TYPES, writerKey } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import type { ClusterState } from './state';
import { applied, refuse, rejected } from './verdict';
import type { Refused, Verdict } from './verdict';
import { evolveCluster } from './evolve-cluster';
import { evolveServices } from './evolve-services';
import { evolveNodes } from './evolve-nodes';
import { evolveNetworks } from './evolve-networks';
import { evolveConfigs } from './evolve-configs';
import { evolveSecrets } from './evolve-secrets';
import { evolveTasks } from './evolve-tasks';
import { unmetExpectation } from './admission/expectations';

export const evolve = (state: ClusterState, event: ShoalEvent): Verdict => {
  const writer = writerKey(event.by);
  const refusal = admit(state, event, writer);
  if (refusal !== undefined) return rejected(event.type, refusal.code, refusal.reason);
  const verdict = route(state, event);
  // A checkpoint changes no state, not even its writer's seq: a build that counts it poison hashes alike.
  if (verdict.status !== 'rejected' && event.type !== 'AuditCheckpointed') state.writers.set(writer, event.seq);
  return verdict;
};

/** Record-level rules: who may write it, under which term, once, and its expectations. */
const admit = (state: ClusterState, event: ShoalEvent, writer: string): Refused | undefined => {
  const { by, type } = event;
  if (!EVENT_TYPES[type].writers.includes(by.component)) return refuse('not-permitted', `${type} may not be proposed by ${by.component}`);

  const current = state.terms.get(by.component);
  if (type === 'OwnershipTaken') {
    if (event.data.component !== by.component || event.data.term !== by.term) {
      return refuse('not-permitted', `OwnershipTaken must be written by ${event.data.component} under term ${event.data.term} itself`);
    }
    if (event.data.term <= (current ?? 0)) {
      return refuse('superseded-term', `term ${event.data.term} of ${by.component} is not newer than its current term ${current ?? 0}`);
    }
  } else if (current !== undefined && by.term < current) {
    return refuse('superseded-term', `stale writer: ${by.component} term ${by.term} was superseded by term ${current}`);
  } else if (by.term > (current ?? 0)) {
    return refuse('superseded-term', `${by.component} term ${by.term} was never taken`);
  }

  const last = state.writers.get(writer);
  if (last !== undefined && event.seq <= last) return refuse('duplicate', `duplicate: ${writer} seq ${event.seq} already applied`);

  return unmetExpectation(state, event.expect);
};

const route = (state: ClusterState, event: ShoalEvent): Verdict => {
  switch (event.type) {
    case 'ClusterInitialized':
    case 'ClusterSpecUpdated':
    case 'JoinTokensRotated':
    case 'OwnershipTaken':
    case 'LogLevelRaised':
    case 'RootCaRotationStarted':
      return evolveCluster(state, event);
    case 'AuditCheckpointed':
      // Checked by `shoal audit verify` (signature, chain, state hash), not by evolve.
      return applied(event.type);
    case 'ServiceCreated':
    case 'ServiceUpdated':
    case 'ServiceRemoved':
    case 'ServiceEndpointsAllocated':
    case 'ServiceUpdateStatusChanged':
      return evolveServices(state, event);
    case 'NetworkCreated':
    case 'NetworkAllocated':
    case 'NetworkRemoved':
      return evolveNetworks(state, event);
    case 'ConfigCreated':
    case 'ConfigUpdated':
    case 'ConfigRemoved':
      return evolveConfigs(state, event);
    case 'SecretCreated':
    case 'SecretUpdated':
    case 'SecretRemoved':
      return evolveSecrets(state, event);
    case 'NodeRegistered':
    case 'NodeStatusChanged':
    case 'NodeSpecUpdated':
    case 'NodeRemoved':
      return evolveNodes(state, event);
    case 'TasksCreated':
    case 'TasksAllocated':
    case 'TasksAllocationFailed':
    case 'TasksAssigned':
    case 'TasksUnschedulable':
    case 'TaskStatusesReported':
    case 'TaskDesiredStatesChanged':
    case 'TasksRemoved':
      return evolveTasks(state, event);
    default: {
      const _exhaustive: never = event;
      return rejected(undefined, 'poison', `unhandled event ${JSON.stringify(_exhaustive)}`);
    }
  }
};
