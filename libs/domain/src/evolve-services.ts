/** Services: the user's intents, their endpoints and their rolling-update status. */
import { isJob } from '@shoal/contracts';
import type { EventOf, ServiceSpec } from '@shoal/contracts';
import { canonicalJson } from './hash/canonical';
import { missingConfig, missingNetwork } from './state';
import type { ClusterState, Service } from './state';
import { applied, batchVerdict, refuse, rejected } from './verdict';
import type { Refused, Verdict } from './verdict';

type ServiceEvent = EventOf<
  'ServiceCreated' | 'ServiceUpdated' | 'ServiceRemoved' | 'ServiceEndpointsAllocated' | 'ServiceUpdateStatusChanged'
>;

const serviceNamed = (state: ClusterState, name: string): Service | undefined => {
  for (const service of state.services.values()) if (service.spec.name === name) return service;
  return undefined;
};

/** The orchestrator may only roll a service back to its previous spec, and never roll back a rollback. */
const automaticRollbackRefusal = (service: Service, spec: ServiceSpec, rollback: boolean | undefined): string | undefined => {
  if (!rollback) return 'the orchestrator may only roll a service back, not update it';
  if (canonicalJson(spec) !== canonicalJson(service.previousSpec)) return `a rollback of ${service.id} must restore its previous spec`;
  const state = service.updateStatus?.state;
  if (state === 'rollback_started' || state === 'rollback_paused') return `service ${service.id} is already rolling back: a rollback is never rolled back`;
  return undefined;
};

export const evolveServices = (state: ClusterState, event: ServiceEvent): Verdict => {
  switch (event.type) {
    case 'ServiceCreated': {
      const { id, spec } = event.data;
      if (state.services.has(id)) return rejected(event.type, 'already-exists', `service ${id} already exists`);
      const clash = serviceNamed(state, spec.name);
      if (clash) return rejected(event.type, 'name-conflict', `name conflicts with an existing object: service ${spec.name} is ${clash.id}`);
      const missing = missingNetwork(state, spec);
      if (missing !== undefined) return rejected(event.type, 'not-found', `network ${missing} not found`);
      const missingConfigId = missingConfig(state, spec);
      if (missingConfigId !== undefined) return rejected(event.type, 'not-found', `config ${missingConfigId} not found`);
      state.services.set(id, {
        id,
        spec,
        version: 1,
        createdAt: event.at,
        updatedAt: event.at,
        ...(isJob(spec.mode) ? { jobIteration: 0 } : {}),
      });
      return applied(event.type);
    }
    case 'ServiceUpdated': {
      const { id, spec, rollback, message } = event.data;
      const service = state.services.get(id);
      if (!service) return rejected(event.type, 'not-found', `service ${id} not found`);
      if (spec.name !== service.spec.name) return rejected(event.type, 'invalid', `renaming services is not supported`);
      if (spec.mode.kind !== service.spec.mode.kind) {
        return rejected(event.type, 'invalid', `service mode change is not allowed (${service.spec.mode.kind} → ${spec.mode.kind})`);
      }
      if (rollback && !service.previousSpec) return rejected(event.type, 'invalid', `service ${id} has no previous spec to roll back to`);
      // A rollback restores a spec that was once accepted: as SwarmKit, a network it names
      // that has gone since is the allocator's to report, not a reason to refuse the rollback.
      // So is a config: its tasks fail on their nodes, as they do in SwarmKit.
      const missing = rollback ? undefined : missingNetwork(state, spec);
      if (missing !== undefined) return rejected(event.type, 'not-found', `network ${missing} not found`);
      const missingConfigId = rollback ? undefined : missingConfig(state, spec);
      if (missingConfigId !== undefined) return rejected(event.type, 'not-found', `config ${missingConfigId} not found`);
      if (event.by.component === 'orchestrator') {
        const refusal = automaticRollbackRefusal(service, spec, rollback);
        if (refusal) return rejected(event.type, 'invalid', refusal);
      }
      // A new update starts afresh (a paused one is unpaused); a rollback starts rolling back.
      const { updateStatus: _previousStatus, ...rest } = service;
      state.services.set(id, {
        ...rest,
        spec,
        previousSpec: service.spec,
        version: service.version + 1,
        updatedAt: event.at,
        ...(rollback
          ? {
              updateStatus: {
                state: 'rollback_started' as const,
                message: message ?? (event.by.component === 'api' ? 'manually requested rollback' : 'rollback started'),
                startedAt: event.at,
              },
            }
          : {}),
        ...(service.jobIteration !== undefined ? { jobIteration: service.jobIteration + 1 } : {}),
      });
      return applied(event.type);
    }
    case 'ServiceRemoved': {
      if (!state.services.delete(event.data.id)) return rejected(event.type, 'not-found', `service ${event.data.id} not found`);
      return applied(event.type);
    }
    case 'ServiceEndpointsAllocated': {
      const refusals: Refused[] = [];
      for (const item of event.data.services) {
        const service = state.services.get(item.id);
        if (!service) refusals.push(refuse('not-found', `service ${item.id} not found`, item.id));
        else if (service.version !== item.specVersion) {
          refusals.push(refuse('stale-version', `service ${item.id} is at version ${service.version}, not ${item.specVersion}`, item.id));
        } else state.services.set(item.id, { ...service, endpoint: item.endpoint, endpointVersion: item.specVersion });
      }
      return batchVerdict(event.type, event.data.services.length, refusals);
    }
    case 'ServiceUpdateStatusChanged': {
      const { id, status } = event.data;
      const service = state.services.get(id);
      if (!service) return rejected(event.type, 'not-found', `service ${id} not found`);
      const { updateStatus: _previous, ...rest } = service;
      state.services.set(id, status === null ? rest : { ...rest, updateStatus: status });
      return applied(event.type);
    }
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
};
