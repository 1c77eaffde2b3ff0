/** Services: the user's intents, their endpoints and their rolling-update status. */
import { isJob } from '@shoal/contracts';
import type { EventOf } from '@shoal/contracts';
import { admitServiceSpec } from './admission/service-admission';
import type { ClusterState } from './state';
import { applied, batchVerdict, refuse, rejected } from './verdict';
import type { Refused, Verdict } from './verdict';

type ServiceEvent = EventOf<
  'ServiceCreated' | 'ServiceUpdated' | 'ServiceRemoved' | 'ServiceEndpointsAllocated' | 'ServiceUpdateStatusChanged'
>;

export const evolveServices = (state: ClusterState, event: ServiceEvent): Verdict => {
  switch (event.type) {
    case 'ServiceCreated': {
      const { id, spec } = event.data;
      const refusal = admitServiceSpec(state, { id, spec, by: event.by.component }, 'record');
      if (refusal) return rejected(event.type, refusal.code, refusal.reason);
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
      const refusal = admitServiceSpec(state, { id, spec, current: service, rollback, by: event.by.component }, 'record');
      if (refusal) return rejected(event.type, refusal.code, refusal.reason);
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
