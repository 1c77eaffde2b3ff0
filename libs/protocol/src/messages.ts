/** The protocol's messages as @grpc/proto-loader decodes them (camelCase, longs as numbers, enums as strings). */

export interface PlatformMessage {
  os: string;
  architecture: string;
}

export interface NodeDescriptionMessage {
  hostname: string;
  platform: PlatformMessage;
  nanoCpus: number;
  memoryBytes: number;
  generic: { kind: string; discrete: number; named: string }[];
  engineVersion: string;
  engineLabels: Record<string, string>;
  plugins: { type: string; name: string }[];
  /** Under mutual TLS: the root CA certificates the node trusts, PEM (Docker's node TLSInfo.TrustRoot); optional. */
  tlsTrustRoot?: string;
}

export interface SessionRequest {
  joinToken: string;
  nodeId: string;
  description: NodeDescriptionMessage;
}

export interface SessionMessage {
  nodeId: string;
  sessionId: string;
  heartbeatPeriodMs: number;
  /** The dispatchers' addresses, the sender's first (empty: it did not say). */
  dispatchers: string[];
  /** Log subscriptions for the node's tasks, new or closed (a message carrying them has period 0 and no dispatchers). */
  logSubscriptions: LogSubscriptionMessage[];
  /** Renew the node's certificate now: a root CA rotation asks for one of the new root, or for the new root to be trusted (a message carrying it has period 0 and no dispatchers). */
  renewCertificate?: boolean;
}

export interface HeartbeatRequest {
  nodeId: string;
  sessionId: string;
}

export interface HeartbeatResponse {
  periodMs: number;
}

export interface HeartbeatsResponse {
  taken: number;
  unknown: number;
}

export interface TaskStatusMessage {
  taskId: string;
  state: number;
  at: string;
  message: string;
  err: string;
  hasExitCode: boolean;
  exitCode: number;
  /** The task's container (64 hex digits); empty or absent: none. Agents that predate it send none. */
  containerId?: string;
  /** The container's process on the node (0 once it stopped); read only with `containerId`. */
  pid?: number;
}

export interface UpdateTaskStatusRequest {
  nodeId: string;
  sessionId: string;
  updates: TaskStatusMessage[];
}

export interface UpdateTaskStatusesRequest {
  sessions: UpdateTaskStatusRequest[];
}

export interface UpdateTaskStatusesResponse {
  /** Session ids of entries the dispatcher did not take: those sessions are gone. */
  unknownSessions: string[];
}

export interface AssignmentsRequest {
  nodeId: string;
  sessionId: string;
}

export interface AssignmentMessage {
  taskId: string;
  serviceId: string;
  serviceName: string;
  slot: number;
  desiredState: number;
  observedState: number;
  specJson: string;
  /** The ports published for the task's service (PortConfig[]), as JSON; empty or absent: none. */
  portsJson?: string;
  /** The task's networks with its addresses on them (AssignedNetwork[]), as JSON; empty or absent: none. */
  networksJson?: string;
}

export type AssignmentAction = 'UPDATE' | 'REMOVE';

export interface AssignmentChangeMessage {
  action: AssignmentAction;
  assignment: AssignmentMessage;
}

/** A config or a secret a task on the node uses, with its bytes. */
export interface AssignedConfigMessage {
  id: string;
  name: string;
  data: Buffer;
  /** A secret (container.secrets names it), not a config. */
  secret?: boolean;
}

export interface ConfigChangeMessage {
  action: AssignmentAction;
  /** On REMOVE, only the id counts. */
  config: AssignedConfigMessage;
}

export interface AssignmentsMessage {
  type: 'COMPLETE' | 'INCREMENTAL';
  changes: AssignmentChangeMessage[];
  /** The configs the node's tasks use (COMPLETE: all of them; INCREMENTAL: added and removed); before the tasks that need them. */
  configs: ConfigChangeMessage[];
}

export interface LogSelectorMessage {
  serviceIds: string[];
  taskIds: string[];
}

export interface LogOptionsMessage {
  stdout: boolean;
  stderr: boolean;
  follow: boolean;
  /** Lines from the end of each task's output; negative: all. */
  tail: number;
  /** Lines written at or after this time (ms since the epoch); 0: all. */
  sinceMs: number;
}

export interface LogSubscriptionMessage {
  id: string;
  selector: LogSelectorMessage;
  options: LogOptionsMessage;
  /** The subscription is over. */
  close: boolean;
}

export type LogStreamName = 'STDOUT' | 'STDERR';

export interface LogMessage {
  taskId: string;
  /** Set by the dispatcher. */
  serviceId: string;
  /** Set by the dispatcher. */
  nodeId: string;
  /** ISO 8601: when the line was written. */
  at: string;
  stream: LogStreamName;
  /** One line, with its newline. */
  data: Buffer;
}

export interface PublishLogsMessage {
  nodeId: string;
  sessionId: string;
  subscriptionId: string;
  messages: LogMessage[];
  /** The node has sent everything it will for the subscription. */
  close: boolean;
}

export interface SubscribeLogsRequest {
  selector: LogSelectorMessage;
  options: LogOptionsMessage;
  /** The cluster's manager join token. */
  managerToken: string;
}

export interface SubscribeLogsMessage {
  messages: LogMessage[];
  /** Why some output will not come: the stream is incomplete. */
  warnings: string[];
}


export interface GetRootCaCertificateResponse {
  certificate: string;
}

export interface IssueNodeCertificateRequest {
  token: string;
  publicKey: string;
  signature: Buffer;
}

export interface RenewNodeCertificateRequest {
  publicKey: string;
  signature: Buffer;
}

export interface NodeCertificateResponse {
  nodeId: string;
  certificate: string;
  ca: string;
}
