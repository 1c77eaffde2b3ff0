/** Nodes: Shoal's node → Docker's Node object, and Docker's NodeSpec (node update) → Shoal's. */
import { NODE_AVAILABILITIES, NODE_ROLES } from '@shoal/contracts';
import type { NodeAvailability, NodeRole, NodeSpec } from '@shoal/contracts';
import type { Node } from '@shoal/domain';
import type { DockerNode, DockerNodeSpec } from './docker-types';
import { toDockerResources } from './service-mapper';
import { SpecError } from './spec-error';
import { NO_TLS_INFO } from './swarm-mapper';

type DockerPlugin = { readonly Type: string; readonly Name: string };
const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
/** A node's plugins as Docker's engine describes them: sorted by type, then name (moby's `sortedPlugins`), whatever order they were reported in. */
const sortedPlugins = (plugins: readonly { readonly type: string; readonly name: string }[]): DockerPlugin[] =>
  plugins.map((p) => ({ Type: p.type, Name: p.name })).sort((a, b) => byteOrder(a.Type, b.Type) || byteOrder(a.Name, b.Name));

/** `tls`: the root CA that issued the nodes' certificates, as Docker shows it, for a node that has not reported its own; empty without one. */
export const toDockerNode = (node: Node, tls: DockerNode['Description']['TLSInfo'] = NO_TLS_INFO): DockerNode => {
  const { description, spec, status } = node;
  return {
    ID: node.id,
    Version: { Index: node.version },
    CreatedAt: node.createdAt,
    UpdatedAt: node.updatedAt,
    Spec: { ...(spec.name ? { Name: spec.name } : {}), Labels: { ...spec.labels }, Role: spec.role, Availability: spec.availability },
    Description: {
      Hostname: description.hostname,
      Platform: { Architecture: description.platform.architecture, OS: description.platform.os },
      Resources: toDockerResources(description.resources),
      Engine: {
        EngineVersion: description.engine.version,
        ...(description.engine.labels ? { Labels: { ...description.engine.labels } } : {}),
        ...(description.engine.plugins ? { Plugins: sortedPlugins(description.engine.plugins) } : {}),
      },
      // What the node reported and the dispatcher verified (log level 6); before that, the cluster's root as the nodes' issuer.
      TLSInfo: description.tls
        ? { TrustRoot: description.tls.trustRoot, CertIssuerSubject: description.tls.certIssuerSubject, CertIssuerPublicKey: description.tls.certIssuerPublicKey }
        : { ...tls },
    },
    Status: { State: status.state, ...(status.message ? { Message: status.message } : {}), Addr: status.addr ?? '' },
    // Never the leader (that is the control plane, control-plane-node.ts): Docker leaves a false Leader out.
    ...(spec.role === 'manager' ? { ManagerStatus: { Reachability: status.state === 'ready' ? 'reachable' : 'unreachable', Addr: status.addr ?? '' } } : {}),
  };
};

/** `docker node update` sends the whole NodeSpec back; what it leaves out keeps its value. */
export const fromDockerNodeSpec = (spec: DockerNodeSpec, current: NodeSpec): NodeSpec => {
  const role = spec.Role || current.role;
  if (!NODE_ROLES.includes(role as NodeRole)) throw new SpecError('Role', `"${role}" is not one of ${NODE_ROLES.join(', ')}`);
  const availability = spec.Availability || current.availability;
  if (!NODE_AVAILABILITIES.includes(availability as NodeAvailability)) {
    throw new SpecError('Availability', `"${availability}" is not one of ${NODE_AVAILABILITIES.join(', ')}`);
  }
  const labels = spec.Labels ?? current.labels;
  const name = spec.Name ?? current.name;
  return {
    ...(name ? { name } : {}),
    labels: { ...labels },
    role: role as NodeRole,
    availability: availability as NodeAvailability,
  };
};
