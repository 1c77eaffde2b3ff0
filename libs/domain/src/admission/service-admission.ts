/**
 * Whether a service spec may be admitted: create a service, or replace one's spec. One set
 * of rules, asked at two stages:
 *  - 'record': evolve, ruling on ServiceCreated / ServiceUpdated on the log;
 *  - 'intent': the API, against its view, before it writes. An intent is also held to what
 *    Docker's daemon checks there and then — a rollback needs a spec to go back to, the
 *    configs it uses are there under the names it gives, no other service publishes its
 *    ingress ports — in Docker's words, and to the versions its writer expects, which evolve
 *    checks before anything else; so the API answers what the log would, in the same order.
 */
import { RULE_LEVELS } from '@shoal/contracts';
import type { Component, Expectations, ServiceSpec } from '@shoal/contracts';
import { canonicalJson } from '../hash/canonical';
import { missingNetwork } from '../state';
import { ruleApplies } from '../rule-levels';
import type { ClusterState, Service } from '../state';
import { refuse } from '../verdict';
import type { Refused } from '../verdict';
import { unmetExpectation } from './expectations';
import { ingressPortConflict } from './ingress-ports';
import { limitRefusal } from './limits';

export type AdmissionStage = 'intent' | 'record';

export interface ServiceProposal {
  /** The service's id: a new one's, or the one whose spec is replaced. */
  readonly id: string;
  readonly spec: ServiceSpec;
  /** The service whose spec `spec` replaces; absent for a create. */
  readonly current?: Service;
  /** An update back to the current service's previous spec. */
  readonly rollback?: boolean;
  /** Who proposes it: the orchestrator may only roll back. */
  readonly by: Component;
  /** The versions the writer decided from (evolve checks a record's before it routes it). */
  readonly expect?: Expectations;
}

/** Why `proposal` may not be admitted at `stage`; undefined when it may. */
export const admitServiceSpec = (state: ClusterState, proposal: ServiceProposal, stage: AdmissionStage): Refused | undefined =>
  (stage === 'intent' ? intentRefusal(state, proposal) : undefined) ??
  (proposal.current ? updateRefusal(state, proposal, proposal.current, stage) : createRefusal(state, proposal, stage));

const intentRefusal = (state: ClusterState, { spec, current, rollback, expect }: ServiceProposal): Refused | undefined =>
  (rollback && current ? nothingToRollBackTo(current, 'intent') : undefined) ??
  (rollback ? undefined : networkRefusal(state, spec) ?? configRefusal(state, spec, 'intent') ?? secretRefusal(state, spec, 'intent') ?? portRefusal(state, spec, current)) ??
  unmetExpectation(state, expect);

const createRefusal = (state: ClusterState, { id, spec }: ServiceProposal, stage: AdmissionStage): Refused | undefined => {
  if (state.services.has(id)) return refuse('already-exists', `service ${id} already exists`);
  const clash = serviceNamed(state, spec.name);
  if (clash) return refuse('name-conflict', `name conflicts with an existing object: service ${spec.name} is ${clash.id}`);
  return networkRefusal(state, spec) ?? configRefusal(state, spec, 'record') ?? secretRefusal(state, spec, 'record') ?? (limitsApply(state, stage) ? limitRefusal(state, id, spec, undefined) : undefined);
};

const updateRefusal = (state: ClusterState, { spec, rollback, by }: ServiceProposal, current: Service, stage: AdmissionStage): Refused | undefined => {
  if (spec.name !== current.spec.name) return refuse('invalid', `renaming services is not supported`);
  if (spec.mode.kind !== current.spec.mode.kind) {
    return refuse('invalid', `service mode change is not allowed (${current.spec.mode.kind} → ${spec.mode.kind})`);
  }
  if (rollback) {
    // A rollback restores a spec that was once accepted: as SwarmKit, a network it names
    // that has gone since is the allocator's to report, not a reason to refuse the rollback.
    // So is a config: its tasks fail on their nodes, as they do in SwarmKit.
    const refusal = nothingToRollBackTo(current, stage);
    if (refusal) return refusal;
  } else {
    // A rollback restores a spec once admitted; anything else is held to today's limits.
    const refusal = networkRefusal(state, spec) ?? configRefusal(state, spec, 'record') ?? secretRefusal(state, spec, 'record') ?? (limitsApply(state, stage) ? limitRefusal(state, current.id, spec, current.spec) : undefined);
    if (refusal) return refusal;
  }
  return by === 'orchestrator' ? automaticRollbackRefusal(current, spec, rollback) : undefined;
};

/**
 * The API holds every intent to the limits; evolve holds a record to them only on a log at
 * their level, so a build that has them rules as one that has not until the log is raised.
 */
const limitsApply = (state: ClusterState, stage: AdmissionStage): boolean =>
  stage === 'intent' || ruleApplies(state, RULE_LEVELS.admissionLimitsOnTheLog);

const serviceNamed = (state: ClusterState, name: string): Service | undefined => {
  for (const service of state.services.values()) if (service.spec.name === name) return service;
  return undefined;
};

/** A rollback needs a previous spec; an intent is told so in Docker's words. */
const nothingToRollBackTo = (current: Service, stage: AdmissionStage): Refused | undefined => {
  if (current.previousSpec) return undefined;
  return refuse('invalid', stage === 'intent' ? `service ${current.id} does not have a previous spec` : `service ${current.id} has no previous spec to roll back to`);
};

/** Every network a spec attaches to (by id or name) must exist (404, as Docker's daemon resolves them). */
const networkRefusal = (state: ClusterState, spec: ServiceSpec): Refused | undefined => {
  const network = missingNetwork(state, spec);
  return network === undefined ? undefined : refuse('not-found', `network ${network} not found`);
};

/**
 * Every config (or secret) a spec uses must exist. An intent's must also have the name it
 * gives them, and is refused as swarmkit's InvalidArgument, naming them all ("config not
 * found: NAME"); a record is refused for the first id that is not there.
 */
const referenceRefusal = (
  kind: 'config' | 'secret',
  refs: readonly { readonly id: string; readonly name: string }[],
  stored: ReadonlyMap<string, { readonly spec: { readonly name: string } }>,
  stage: AdmissionStage,
): Refused | undefined => {
  if (stage === 'record') {
    const id = refs.find((ref) => !stored.has(ref.id))?.id;
    return id === undefined ? undefined : refuse('not-found', `${kind} ${id} not found`);
  }
  const missing = refs.filter((ref) => stored.get(ref.id)?.spec.name !== ref.name);
  if (missing.length === 0) return undefined;
  return refuse('invalid', `${kind}${missing.length === 1 ? '' : 's'} not found: ${missing.map((ref) => ref.name).join(', ')}`);
};

// Only a spec that names configs (or secrets) pays for the look: evolve asks on every service record.
const configRefusal = (state: ClusterState, spec: ServiceSpec, stage: AdmissionStage): Refused | undefined => {
  const refs = spec.task.container.configs;
  return refs?.length ? referenceRefusal('config', refs.map((ref) => ({ id: ref.configId, name: ref.configName })), state.configs, stage) : undefined;
};

const secretRefusal = (state: ClusterState, spec: ServiceSpec, stage: AdmissionStage): Refused | undefined => {
  const refs = spec.task.container.secrets;
  return refs?.length ? referenceRefusal('secret', refs.map((ref) => ({ id: ref.secretId, name: ref.secretName })), state.secrets, stage) : undefined;
};

const portRefusal = (state: ClusterState, spec: ServiceSpec, current: Service | undefined): Refused | undefined => {
  const conflict = ingressPortConflict(state, spec, current?.id);
  return conflict === undefined ? undefined : refuse('in-use', conflict);
};

/** The orchestrator may only roll a service back to its previous spec, and never roll back a rollback. */
const automaticRollbackRefusal = (service: Service, spec: ServiceSpec, rollback: boolean | undefined): Refused | undefined => {
  if (!rollback) return refuse('invalid', 'the orchestrator may only roll a service back, not update it');
  if (canonicalJson(spec) !== canonicalJson(service.previousSpec)) return refuse('invalid', `a rollback of ${service.id} must restore its previous spec`);
  const state = service.updateStatus?.state;
  if (state === 'rollback_started' || state === 'rollback_paused') {
    return refuse('invalid', `service ${service.id} is already rolling back: a rollback is never rolled back`);
  }
  return undefined;
};
