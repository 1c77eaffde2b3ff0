/**
 * The agent protocol's messages ↔ Shoal's contracts: a node's description into
 * NodeRegistered's, an agent's task statuses into reports, assignments (and the configs
 * that go with them, their base64 as bytes) into messages.
 * What does not fit the event's shape is refused here, before it could reach the log.
 */
import type { X509Certificate } from 'node:crypto';
import { EVENT_SHAPES, isTaskState } from '@shoal/contracts';
import type { CertificateIssuer, GenericResource, NodeDescription, NodeRole, NodeTlsInfo, TaskStatusReport } from '@shoal/contracts';
import { certificatesOf, pemBundle } from '@shoal/runtime';
import type { AssignedConfig, Assignment, AssignmentChange, AssignmentChanges, AssignmentSet, ConfigChange } from '@shoal/domain';
import type {
  AssignedConfigMessage,
  AssignmentChangeMessage,
  AssignmentMessage,
  AssignmentsMessage,
  ConfigChangeMessage,
  NodeDescriptionMessage,
  TaskStatusMessage,
} from '@shoal/protocol';
import { ConfigBytes } from './config-bytes';
import { quoted } from './refusal';

/** The node's description as NodeRegistered carries it, or why it cannot be. */
export const toNodeDescription = (message: NodeDescriptionMessage | null | undefined, role: NodeRole): NodeDescription | string => {
  if (!message) return 'the session request has no node description';
  const generic: GenericResource[] = (message.generic ?? []).map((g) =>
    g.named ? { kind: g.kind, named: g.named } : { kind: g.kind, discrete: Number(g.discrete ?? 0) },
  );
  const labels = message.engineLabels ?? {};
  const plugins = (message.plugins ?? []).map((p) => ({ type: p.type, name: p.name }));
  const description: NodeDescription = {
    hostname: message.hostname ?? '',
    platform: { os: message.platform?.os ?? '', architecture: message.platform?.architecture ?? '' },
    resources: {
      nanoCpus: Number(message.nanoCpus ?? 0),
      memoryBytes: Number(message.memoryBytes ?? 0),
      ...(generic.length > 0 ? { generic } : {}),
    },
    engine: {
      version: message.engineVersion ?? '',
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
      ...(plugins.length > 0 ? { plugins } : {}),
    },
  };
  const problem = EVENT_SHAPES.NodeRegistered({ id: 'node', role, description }, 'registration');
  return problem ?? description;
};

/** The most a node's reported trust roots may take: a few roots' PEMs. */
const MAX_TRUST_ROOT_CHARS = 16 * 1024;

/**
 * A node's TLS as NodeRegistered keeps it: the roots it says it trusts (each a CA
 * certificate; written again as one bundle) and its certificate's issuer as the dispatcher
 * verified it; or why the roots cannot be taken.
 */
export const nodeTlsInfo = (trustRoot: string, issuer: CertificateIssuer): NodeTlsInfo | string => {
  if (trustRoot.length > MAX_TRUST_ROOT_CHARS) return `tls_trust_root is ${trustRoot.length} characters: at most ${MAX_TRUST_ROOT_CHARS}, the PEMs of the roots the node trusts`;
  let roots: X509Certificate[];
  try {
    roots = certificatesOf(trustRoot);
  } catch {
    return 'tls_trust_root is not PEM certificates: send the root CA certificates the node trusts';
  }
  if (roots.some((root) => !root.ca)) return "tls_trust_root holds a certificate that is not a CA's: send the root CA certificates the node trusts";
  return { trustRoot: pemBundle(roots), certIssuerSubject: issuer.subject, certIssuerPublicKey: issuer.publicKey };
};

/** A container's id as an engine makes it (TaskStatusesReported's shape). */
const CONTAINER_ID = /^[0-9a-f]{64}$/;

/** An agent's status as a report, or why it cannot be one. `now` stands in for a missing time. */
export const toStatusReport = (message: TaskStatusMessage, now: Date): TaskStatusReport | string => {
  if (!message.taskId) return 'a status without a task id';
  if (!isTaskState(message.state)) return `task ${quoted(message.taskId)}: ${message.state} is not a task state`;
  if (message.hasExitCode && !Number.isSafeInteger(message.exitCode)) return `task ${quoted(message.taskId)}: exit code ${message.exitCode} is not an integer`;
  const containerId = message.containerId ?? '';
  const pid = Number(message.pid ?? 0);
  if (containerId !== '' && !CONTAINER_ID.test(containerId)) return `task ${quoted(message.taskId)}: container id ${quoted(containerId)} is not 64 hex digits`;
  if (containerId !== '' && !(Number.isSafeInteger(pid) && pid >= 0)) return `task ${quoted(message.taskId)}: pid ${message.pid} is not a non-negative integer`;
  return {
    id: message.taskId,
    state: message.state,
    at: message.at || now.toISOString(),
    ...(message.message ? { message: message.message } : {}),
    ...(message.err ? { err: message.err } : {}),
    ...(message.hasExitCode ? { exitCode: message.exitCode } : {}),
    ...(containerId !== '' ? { containerId, pid } : {}),
  };
};

export const toAssignmentMessage = (assignment: Assignment): AssignmentMessage => ({
  taskId: assignment.taskId,
  serviceId: assignment.serviceId,
  serviceName: assignment.serviceName,
  slot: assignment.slot ?? 0,
  desiredState: assignment.desiredState,
  observedState: assignment.observedState,
  specJson: JSON.stringify(assignment.spec),
  portsJson: assignment.ports ? JSON.stringify(assignment.ports) : '',
  networksJson: assignment.networks ? JSON.stringify(assignment.networks) : '',
});

const REMOVED = (taskId: string): AssignmentMessage => ({
  taskId,
  serviceId: '',
  serviceName: '',
  slot: 0,
  desiredState: 0,
  observedState: 0,
  specJson: '',
});

export const toChangeMessage = (change: AssignmentChange): AssignmentChangeMessage =>
  change.action === 'update'
    ? { action: 'UPDATE', assignment: toAssignmentMessage(change.assignment) }
    : { action: 'REMOVE', assignment: REMOVED(change.taskId) };

/** The bytes of the configs this dispatcher sends, each decoded once for all the nodes it goes to. */
const configBytes = new ConfigBytes();

/**
 * Opens a secret's sealed bytes as they leave for a node (never kept); undefined when it
 * cannot (no data key: the node is not sent the secret, and its agent rejects the task
 * that needs it, saying so).
 */
export type SecretOpener = (id: string, sealed: string) => Buffer | undefined;

/** A dispatcher with no vault opens no secret. */
export const NO_SECRETS: SecretOpener = () => undefined;

/** The message of a config, or of a secret with its bytes opened; undefined for a secret that cannot be opened. */
export const toConfigMessage = (config: AssignedConfig, openSecret: SecretOpener = NO_SECRETS): AssignedConfigMessage | undefined => {
  if (!config.secret) return { id: config.id, name: config.name, data: configBytes.bytesOf(config) };
  const data = openSecret(config.id, config.data);
  return data && { id: config.id, name: config.name, data, secret: true };
};

const updates = (configs: readonly AssignedConfig[], openSecret: SecretOpener): ConfigChangeMessage[] =>
  configs.flatMap((assigned) => {
    const config = toConfigMessage(assigned, openSecret);
    return config ? [{ action: 'UPDATE' as const, config }] : [];
  });

export const toConfigChangeMessages = (changes: readonly ConfigChange[], openSecret: SecretOpener = NO_SECRETS): ConfigChangeMessage[] =>
  changes.flatMap((change) =>
    change.action === 'update'
      ? updates([change.config], openSecret)
      : [{ action: 'REMOVE' as const, config: { id: change.configId, name: '', data: Buffer.alloc(0) } }],
  );

/** The COMPLETE message of a set. */
export const toCompleteMessage = (set: AssignmentSet, openSecret: SecretOpener = NO_SECRETS): AssignmentsMessage => ({
  type: 'COMPLETE',
  changes: set.tasks.map((assignment) => ({ action: 'UPDATE', assignment: toAssignmentMessage(assignment) })),
  configs: updates(set.configs, openSecret),
});

/** The INCREMENTAL message of some changes. */
export const toIncrementalMessage = (changes: AssignmentChanges, openSecret: SecretOpener = NO_SECRETS): AssignmentsMessage => ({
  type: 'INCREMENTAL',
  changes: changes.tasks.map(toChangeMessage),
  configs: toConfigChangeMessages(changes.configs, openSecret),
});
