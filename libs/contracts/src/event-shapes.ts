/** The structural shape of every event's data at its current version. */
import type { EventType } from './events';
import { CONFIG_NAME_PATTERN, MAX_CONFIG_BYTES, MAX_CONFIG_NAME_LENGTH, MAX_FILE_MODE, base64DecodedLength, isBase64 } from './config';
import { COMPONENTS } from './envelope';
import { MAX_SECRET_BYTES, SEAL_OVERHEAD } from './secret';
import { NODE_AVAILABILITIES, NODE_ROLES, NODE_STATES } from './node';
import {
  FAILURE_ACTIONS,
  PORT_PROTOCOLS,
  RESTART_CONDITIONS,
  UPDATE_ORDERS,
  UPDATE_STATES,
} from './service';
import { isDesiredState, isTaskState } from './task-state';
import type { Shape } from './shape';
import {
  arrayOf,
  bool,
  int,
  nonEmptyStr,
  nonNegInt,
  nullable,
  num,
  object,
  oneOf,
  optional,
  recordOf,
  str,
  tagged,
} from './shape';

const labels = optional(recordOf(str));
const id = nonEmptyStr;
const hex64: Shape = (v, p) => (typeof v === 'string' && /^[0-9a-f]{64}$/.test(v) ? undefined : `${p}: expected 64 hex digits`);
const positiveInt: Shape = (v, p) => int(v, p) ?? ((v as number) > 0 ? undefined : `${p}: expected a positive integer`);
const taskState: Shape = (v, p) => (isTaskState(v) ? undefined : `${p}: expected a task state`);
const desiredState: Shape = (v, p) =>
  isDesiredState(v) ? undefined : `${p}: expected a desired state (READY, RUNNING, COMPLETE, SHUTDOWN or REMOVE)`;

const resources = object({
  nanoCpus: optional(nonNegInt),
  memoryBytes: optional(nonNegInt),
  generic: optional(
    arrayOf((v, p) =>
      object({ kind: nonEmptyStr })(v, p) ??
      ((v as Record<string, unknown>).discrete !== undefined
        ? nonNegInt((v as Record<string, unknown>).discrete, `${p}.discrete`)
        : nonEmptyStr((v as Record<string, unknown>).named, `${p}.named`)),
    ),
  ),
});

const platform = object({ os: str, architecture: str });

const updateConfig = object({
  parallelism: nonNegInt,
  delayMs: nonNegInt,
  failureAction: oneOf(FAILURE_ACTIONS),
  monitorMs: nonNegInt,
  maxFailureRatio: (v, p) => num(v, p) ?? ((v as number) >= 0 && (v as number) <= 1 ? undefined : `${p}: expected 0..1`),
  order: oneOf(UPDATE_ORDERS),
});

const portConfig = object({
  name: optional(str),
  protocol: oneOf(PORT_PROTOCOLS),
  targetPort: positiveInt,
  publishedPort: optional(positiveInt),
  publishMode: oneOf(['ingress', 'host']),
});

const configName: Shape = (v, p) =>
  nonEmptyStr(v, p) ??
  ((v as string).length <= MAX_CONFIG_NAME_LENGTH && CONFIG_NAME_PATTERN.test(v as string)
    ? undefined
    : `${p}: expected a name of at most ${MAX_CONFIG_NAME_LENGTH} letters, digits, '-', '_' or '.', starting and ending with a letter or digit`);

const configData: Shape = (v, p) =>
  str(v, p) ??
  (!isBase64(v as string)
    ? `${p}: expected base64`
    : base64DecodedLength(v as string) > MAX_CONFIG_BYTES
      ? `${p}: more than ${MAX_CONFIG_BYTES} bytes`
      : undefined);

const configSpec = object({ name: configName, labels, data: configData });

const fileMode: Shape = (v, p) => int(v, p) ?? ((v as number) >= 0 && (v as number) <= MAX_FILE_MODE ? undefined : `${p}: expected permission bits (0 to 0o7777)`);

const configReference = object({
  configId: id,
  configName: nonEmptyStr,
  file: object({ name: nonEmptyStr, uid: str, gid: str, mode: fileMode }),
});

const secretReference = object({
  secretId: id,
  secretName: nonEmptyStr,
  file: object({ name: nonEmptyStr, uid: str, gid: str, mode: fileMode }),
});

const secretSpec = object({ name: configName, labels });

const sealedSecret = object({
  sealed: (v, p) =>
    str(v, p) ??
    (!isBase64(v as string)
      ? `${p}: expected base64`
      : base64DecodedLength(v as string) <= SEAL_OVERHEAD || base64DecodedLength(v as string) >= MAX_SECRET_BYTES + SEAL_OVERHEAD
        ? `${p}: expected a nonce, 1 to ${MAX_SECRET_BYTES - 1} sealed bytes and a tag`
        : undefined),
});

const taskSpec = object({
  container: object({
    image: nonEmptyStr,
    command: optional(arrayOf(str)),
    args: optional(arrayOf(str)),
    env: optional(arrayOf(str)),
    labels,
    configs: optional(arrayOf(configReference)),
    secrets: optional(arrayOf(secretReference)),
  }),
  resources: optional(object({ limits: optional(resources), reservations: optional(resources) })),
  restartPolicy: optional(
    object({
      condition: oneOf(RESTART_CONDITIONS),
      delayMs: nonNegInt,
      maxAttempts: nonNegInt,
      windowMs: nonNegInt,
    }),
  ),
  placement: optional(
    object({
      constraints: optional(arrayOf(str)),
      preferences: optional(arrayOf(object({ spread: nonEmptyStr }))),
      maxReplicas: optional(nonNegInt),
      platforms: optional(arrayOf(platform)),
    }),
  ),
  networks: optional(arrayOf(object({ target: nonEmptyStr, aliases: optional(arrayOf(str)) }))),
  forceUpdate: optional(nonNegInt),
});

const serviceSpec = object({
  name: nonEmptyStr,
  labels,
  task: taskSpec,
  mode: tagged('kind', {
    replicated: object({ replicas: nonNegInt }),
    global: object({}),
    'replicated-job': object({ maxConcurrent: nonNegInt, totalCompletions: nonNegInt }),
    'global-job': object({}),
  }),
  update: optional(updateConfig),
  rollback: optional(updateConfig),
  endpoint: optional(object({ mode: oneOf(['vip', 'dnsrr']), ports: optional(arrayOf(portConfig)) })),
});

/** A join token as kept on the log: sealed beside its hash, or (a record from before level 5) the token in the clear. */
const sealedJoinToken = object({ digest: str, hash: hex64, sealed: nonEmptyStr });
const keptJoinToken: Shape = (v, p) => (typeof v === 'string' ? nonEmptyStr(v, p) : sealedJoinToken(v, p));

const clusterSpec = object({
  name: str,
  labels,
  orchestration: object({ taskHistoryRetentionLimit: int }),
  dispatcher: object({ heartbeatPeriodMs: positiveInt }),
  nodeDownPeriodMs: optional(positiveInt),
  limits: optional(object({ maxReplicasPerService: optional(positiveInt), maxTasks: optional(positiveInt), maxServices: optional(positiveInt), maxSpecBytes: optional(positiveInt) })),
  encryption: optional(object({ autoLockManagers: (v, p) => (v === true ? undefined : `${p}: expected true (autolock off is no encryption field)`) })),
  ca: optional(object({ nodeCertExpiryMs: positiveInt })),
});

const attachment = object({ network: id, addresses: arrayOf(str) });

const newTask = object({
  id,
  serviceId: id,
  slot: optional(positiveInt),
  nodeId: optional(id),
  specVersion: positiveInt,
  spec: optional(taskSpec),
  desiredState,
  replaces: optional(id),
  jobIteration: optional(nonNegInt),
});

const batch = (item: Shape): Shape => object({ tasks: arrayOf(item) });

export const EVENT_SHAPES: { readonly [K in EventType]: Shape } = {
  ClusterInitialized: object({ spec: clusterSpec, tokens: object({ worker: keptJoinToken, manager: keptJoinToken }), logLevel: optional(positiveInt) }),
  ClusterSpecUpdated: object({ spec: clusterSpec }),
  JoinTokensRotated: object({ worker: optional(keptJoinToken), manager: optional(keptJoinToken) }),
  OwnershipTaken: object({ component: oneOf(COMPONENTS), term: positiveInt, reads: optional(positiveInt) }),
  LogLevelRaised: object({ level: positiveInt }),
  RootCaRotationStarted: object({
    forceRotate: nonNegInt,
    root: nonEmptyStr,
    crossSigned: nonEmptyStr,
    key: nonEmptyStr,
    issuer: object({ subject: nonEmptyStr, publicKey: nonEmptyStr }),
    tokens: object({ worker: sealedJoinToken, manager: sealedJoinToken }),
  }),
  AuditCheckpointed: object({
    from: nonNegInt,
    through: nonNegInt,
    chain: hex64,
    state: hex64,
    digests: str,
    key: nonEmptyStr,
    next: optional(nonEmptyStr),
    signature: nonEmptyStr,
  }),
  ServiceCreated: object({ id, spec: serviceSpec }),
  ServiceUpdated: object({ id, spec: serviceSpec, rollback: optional(bool), message: optional(str) }),
  ServiceRemoved: object({ id }),
  ServiceEndpointsAllocated: object({
    services: arrayOf(
      object({
        id,
        specVersion: positiveInt,
        endpoint: object({
          virtualIps: arrayOf(object({ network: id, address: str })),
          ports: arrayOf(portConfig),
        }),
      }),
    ),
  }),
  ServiceUpdateStatusChanged: object({
    id,
    status: nullable(
      object({ state: oneOf(UPDATE_STATES), message: optional(str), startedAt: optional(str), completedAt: optional(str) }),
    ),
  }),
  NetworkCreated: object({
    id,
    spec: object({
      name: nonEmptyStr,
      driver: oneOf(['overlay']),
      labels,
      ingress: optional(bool),
      attachable: optional(bool),
      internal: optional(bool),
      ipam: optional(arrayOf(object({ subnet: optional(str), gateway: optional(str) }))),
    }),
  }),
  NetworkAllocated: object({ id, subnet: nonEmptyStr, gateway: nonEmptyStr }),
  NetworkRemoved: object({ id }),
  ConfigCreated: object({ id, spec: configSpec }),
  ConfigUpdated: object({ id, spec: configSpec }),
  ConfigRemoved: object({ id }),
  SecretCreated: object({ id, spec: secretSpec, data: sealedSecret }),
  SecretUpdated: object({ id, spec: secretSpec }),
  SecretRemoved: object({ id }),
  NodeRegistered: object({
    id,
    role: oneOf(NODE_ROLES),
    addr: optional(str),
    description: object({
      hostname: nonEmptyStr,
      platform,
      resources,
      engine: object({
        version: str,
        labels,
        plugins: optional(arrayOf(object({ type: str, name: str }))),
      }),
      tls: optional(object({ trustRoot: str, certIssuerSubject: str, certIssuerPublicKey: str })),
    }),
  }),
  NodeStatusChanged: object({
    nodes: arrayOf(object({ id, state: oneOf(NODE_STATES), message: optional(str), addr: optional(str) })),
  }),
  NodeSpecUpdated: object({
    id,
    spec: object({
      name: optional(str),
      labels: recordOf(str),
      role: oneOf(NODE_ROLES),
      availability: oneOf(NODE_AVAILABILITIES),
    }),
  }),
  NodeRemoved: object({ id, force: optional(bool) }),
  TasksCreated: batch(newTask),
  TasksAllocated: batch(object({ id, attachments: arrayOf(attachment), ports: optional(arrayOf(portConfig)) })),
  TasksAllocationFailed: batch(object({ id, reason: str })),
  TasksAssigned: batch(object({ id, nodeId: id, why: str })),
  TasksUnschedulable: batch(object({ id, explain: str })),
  TaskStatusesReported: object({
    nodeId: id,
    statuses: arrayOf(
      object({
        id,
        state: taskState,
        at: nonEmptyStr,
        message: optional(str),
        err: optional(str),
        exitCode: optional(int),
        containerId: optional(hex64),
        pid: optional(nonNegInt),
      }),
    ),
  }),
  TaskDesiredStatesChanged: batch(object({ id, desiredState, reason: optional(str) })),
  TasksRemoved: batch(object({ id, reason: str })),
};
