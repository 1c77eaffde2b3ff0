/**
 * Every setting a Shoal process reads from its environment, declared once: the property is
 * the variable, its initializer the default, its decorators the kind of value and the
 * rules between settings, @Setting its meaning and the processes that read it.
 * docs/configuration.md is this list.
 */
import { COMPONENTS, LOG_READERS, Setting } from './setting';
import type { ShoalProcess } from './setting';
import { isOnePartition, parsePartitions } from './partitions';
import { BindAddress, Flag, HostPort, List, LowerCase, OneOf, Port, Rule, WholeNumber } from './setting-rules';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type ShoalLogLevel = (typeof LOG_LEVELS)[number];

export const SASL_MECHANISMS = ['scram-sha-512', 'scram-sha-256', 'plain'] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

export const EXECUTORS = ['sim', 'docker'] as const;

export const TRACES_EXPORTERS = ['none', 'otlp'] as const;
export const TRACES_SAMPLERS = ['parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio', 'always_on', 'always_off', 'traceidratio'] as const;
/** The processes that trace: the API and the control plane (an agent's reports end their traces in the dispatcher). */
const TRACERS: readonly ShoalProcess[] = ['api', ...COMPONENTS, 'all-in-one'];

/** An http(s) URL, or unset. */
const httpUrlProblem = (name: string, url: unknown): string | undefined => {
  if (url === undefined) return undefined;
  const parsed = typeof url === 'string' && URL.canParse(url) ? new URL(url) : undefined;
  return parsed && (parsed.protocol === 'http:' || parsed.protocol === 'https:') ? undefined : `${name} must be an http:// or https:// URL, not "${String(url)}"`;
};

/** The most records between two audit checkpoints (the runtime's MAX_CHECKPOINT_RECORDS). */
const MAX_CHECKPOINT_RECORDS = 20_000;

const isMechanism = (value: unknown): value is SaslMechanism => (SASL_MECHANISMS as readonly unknown[]).includes(value);

export class ShoalEnvironment {
  // The log

  @Setting({ meaning: 'the Kafka brokers, comma-separated `host:port`; unset: the embedded log in `<SHOAL_DATA_DIR>/log`', readBy: LOG_READERS, shownDefault: '(unset: embedded log)' })
  @List()
  KAFKA_BROKERS: readonly string[] = [];

  @Setting({ meaning: 'the log topic is `<prefix>.events`; the lease groups are `<prefix>.<component>`', readBy: LOG_READERS })
  SHOAL_TOPIC_PREFIX = 'shoal';

  @Setting({
    meaning:
      'the partitions of the topic (one cluster each) a process serves: `all` (those the topic has at start) or a list like `0-9,12`; the API, a dispatcher and the all-in-one serve exactly one',
    readBy: LOG_READERS,
  })
  @Rule<ShoalEnvironment>('partitions', (value, settings) => {
    const parsed = parsePartitions(String(value));
    if ('problem' in parsed) return `SHOAL_PARTITIONS: ${parsed.problem}`;
    return settings.SHOAL_CLUSTER_ID !== undefined && !isOnePartition(parsed.selection)
      ? 'SHOAL_CLUSTER_ID names one cluster: unset it to serve several partitions (each cluster is the one its partition names)'
      : undefined;
  })
  SHOAL_PARTITIONS = '0';

  @Setting({ meaning: 'the embedded log, snapshots, `shoal.sock`, `admin.token`, `tokens.json` and the default secrets key live here', readBy: LOG_READERS })
  SHOAL_DATA_DIR = '.shoal';

  @Setting({ meaning: 'replicas each partition must have (unset: 3 on more than one broker, 1 on one); start-up refuses fewer', readBy: LOG_READERS, shownDefault: '3, or 1 on one broker' })
  @WholeNumber('must be a whole number of at least 1', 1)
  SHOAL_KAFKA_REPLICATION_FACTOR?: number;

  @Setting({ meaning: "the topic's min.insync.replicas (unset: 2 on more than one broker, 1 on one); start-up refuses fewer", readBy: LOG_READERS, shownDefault: '2, or 1 on one broker' })
  @WholeNumber('must be a whole number of at least 1', 1)
  SHOAL_KAFKA_MIN_INSYNC?: number;

  @Setting({
    meaning:
      "how long a component's active instance may go unheard (its lease group's session timeout) before a standby takes over; the brokers' group.min.session.timeout.ms must allow it",
    readBy: [...COMPONENTS, 'all-in-one'],
  })
  @WholeNumber('must be a whole number of milliseconds from 1000 to 300000', 1_000, 300_000)
  SHOAL_LEASE_TIMEOUT_MS = 2_000;

  @Setting({ meaning: "TLS to the brokers with the system's CAs (1/0, true/false, yes/no, on/off); implied by any SHOAL_KAFKA_SSL_* file", readBy: LOG_READERS, shownDefault: 'off' })
  @Flag()
  SHOAL_KAFKA_SSL = false;

  @Setting({ meaning: "PEM file: the CA the brokers' certificates chain to", readBy: LOG_READERS, shownDefault: 'system CAs' })
  SHOAL_KAFKA_SSL_CA?: string;

  @Setting({ meaning: "PEM file: this process's client certificate, for brokers with ssl.client.auth=required", readBy: LOG_READERS })
  SHOAL_KAFKA_SSL_CERT?: string;

  @Setting({ meaning: 'PEM file: the client certificate\'s private key; set with SHOAL_KAFKA_SSL_CERT', readBy: LOG_READERS })
  @Rule<ShoalEnvironment>('certificateAndKey', (key, settings) =>
    (key === undefined) === (settings.SHOAL_KAFKA_SSL_CERT === undefined) ? undefined : 'SHOAL_KAFKA_SSL_CERT and SHOAL_KAFKA_SSL_KEY go together: a client certificate needs its key (or set neither)',
  )
  SHOAL_KAFKA_SSL_KEY?: string;

  @Setting({ meaning: `SASL: ${SASL_MECHANISMS.join(', ')} (PLAIN only over TLS); unset: no SASL`, readBy: LOG_READERS })
  @Rule<ShoalEnvironment>('saslMechanism', (mechanism, settings) => {
    if (mechanism === undefined) {
      const credentials = settings.SHOAL_KAFKA_SASL_USERNAME ?? settings.SHOAL_KAFKA_SASL_PASSWORD ?? settings.SHOAL_KAFKA_SASL_PASSWORD_FILE;
      return credentials === undefined ? undefined : `SHOAL_KAFKA_SASL_MECHANISM must be set (${SASL_MECHANISMS.join(', ')}) for SHOAL_KAFKA_SASL_USERNAME and its password to be used`;
    }
    return isMechanism(mechanism) ? undefined : `SHOAL_KAFKA_SASL_MECHANISM must be one of ${SASL_MECHANISMS.join(', ')}, not "${String(mechanism)}"`;
  })
  @LowerCase()
  SHOAL_KAFKA_SASL_MECHANISM?: SaslMechanism;

  @Setting({ meaning: 'the SASL user; required with a mechanism', readBy: LOG_READERS })
  @Rule<ShoalEnvironment>('saslUsername', (username, settings) =>
    isMechanism(settings.SHOAL_KAFKA_SASL_MECHANISM) && username === undefined ? `SHOAL_KAFKA_SASL_MECHANISM=${settings.SHOAL_KAFKA_SASL_MECHANISM} needs SHOAL_KAFKA_SASL_USERNAME` : undefined,
  )
  SHOAL_KAFKA_SASL_USERNAME?: string;

  @Setting({ meaning: 'the SASL password, taken as it is; prefer SHOAL_KAFKA_SASL_PASSWORD_FILE', readBy: LOG_READERS, untrimmed: true })
  SHOAL_KAFKA_SASL_PASSWORD?: string;

  @Setting({ meaning: 'a file holding the SASL password (one trailing newline dropped); exactly one of the two is set with a mechanism', readBy: LOG_READERS })
  @Rule<ShoalEnvironment>('saslPassword', (file, settings) => {
    if (file !== undefined && settings.SHOAL_KAFKA_SASL_PASSWORD !== undefined) return 'set SHOAL_KAFKA_SASL_PASSWORD or SHOAL_KAFKA_SASL_PASSWORD_FILE, not both';
    const mechanism = settings.SHOAL_KAFKA_SASL_MECHANISM;
    return isMechanism(mechanism) && file === undefined && settings.SHOAL_KAFKA_SASL_PASSWORD === undefined
      ? `SHOAL_KAFKA_SASL_MECHANISM=${mechanism} needs a password: SHOAL_KAFKA_SASL_PASSWORD_FILE (or SHOAL_KAFKA_SASL_PASSWORD)`
      : undefined;
  })
  SHOAL_KAFKA_SASL_PASSWORD_FILE?: string;

  // Every process

  @Setting({ meaning: `the log level: ${LOG_LEVELS.join(', ')}; logs are JSON lines, coloured only on a terminal`, readBy: [...LOG_READERS, 'agent'] })
  @OneOf(LOG_LEVELS, { lowerCase: true })
  SHOAL_LOG_LEVEL: ShoalLogLevel = 'info';

  @Setting({ meaning: "the cluster to act for (the all-in-one: the id to create on first start)", readBy: ['api', ...COMPONENTS, 'all-in-one'], shownDefault: "the log's" })
  SHOAL_CLUSTER_ID?: string;

  // A component's process

  @Setting({ meaning: "where a component's health server, the dispatcher's gRPC server and an agent's metrics listen", readBy: [...COMPONENTS, 'agent'] })
  @BindAddress()
  SHOAL_BIND_HOST = '127.0.0.1';

  @Setting({
    meaning: "a component's /healthz, /statez, /readyz and /metrics (0: any free port); an agent serves /metrics, /healthz and /readyz only when it is set",
    readBy: [...COMPONENTS, 'agent'],
  })
  @Port()
  SHOAL_HEALTH_PORT = 0;

  @Setting({ meaning: 'how often a process saves its view under `<SHOAL_DATA_DIR>/snapshots/<component>` (`snapshots/partition-<n>/<component>` for partitions beyond 0), and on shutdown; 0: never', readBy: [...COMPONENTS, 'all-in-one'] })
  @WholeNumber('must be a whole number of milliseconds (0: no snapshots)')
  SHOAL_SNAPSHOT_EVERY_MS = 30_000;

  // The API

  @Setting({ meaning: "the API's TCP port (0: any free port); the all-in-one takes a free one when the default is taken", readBy: ['api', 'all-in-one'] })
  @Port()
  SHOAL_API_PORT = 8080;

  @Setting({ meaning: "where the API's TCP listener binds (--host); 0.0.0.0 only when asked", readBy: ['api', 'all-in-one'] })
  @BindAddress()
  SHOAL_API_HOST = '127.0.0.1';

  @Setting({ meaning: 'serve the API over TLS with SHOAL_API_TLSCERT and SHOAL_API_TLSKEY (--tls)', readBy: ['api', 'all-in-one'], shownDefault: 'off' })
  @Flag()
  SHOAL_API_TLS = false;

  @Setting({ meaning: 'TLS, and every client presents a certificate that chains to SHOAL_API_TLSCACERT (--tlsverify)', readBy: ['api', 'all-in-one'], shownDefault: 'off' })
  @Flag()
  SHOAL_API_TLSVERIFY = false;

  @Setting({ meaning: 'PEM file: the CA client certificates must chain to (--tlscacert; required by TLSVERIFY)', readBy: ['api', 'all-in-one'] })
  SHOAL_API_TLSCACERT?: string;

  @Setting({ meaning: "PEM file: the API's server certificate (--tlscert; required by TLS)", readBy: ['api', 'all-in-one'] })
  SHOAL_API_TLSCERT?: string;

  @Setting({ meaning: "PEM file: the API's private key (--tlskey; required by TLS)", readBy: ['api', 'all-in-one'] })
  SHOAL_API_TLSKEY?: string;

  @Setting({ meaning: 'the address `docker swarm join-token` shows', readBy: ['api'] })
  SHOAL_JOIN_ADDR = '127.0.0.1:2377';

  @Setting({ meaning: 'PEM file: the audit key published to the API, which its proofs trust (unset: the first checkpoint\'s key)', readBy: ['api', 'all-in-one'] })
  SHOAL_AUDIT_PUBLIC_KEY?: string;

  @Setting({ meaning: "the cluster key that wraps every secret's data key (32 bytes, base64; the same file on every API and dispatcher)", readBy: ['api', 'dispatcher', 'all-in-one'], shownDefault: '`<SHOAL_DATA_DIR>/secrets.key`, made if missing' })
  SHOAL_SECRETS_KEY_FILE?: string;

  // The dispatcher

  @Setting({ meaning: 'where agents join (gRPC; 0: any free port); the all-in-one takes a free one when the default is taken', readBy: ['dispatcher', 'all-in-one'] })
  @Port()
  SHOAL_DISPATCHER_PORT = 2377;

  @Setting({ meaning: 'the host:port agents are sent to when this dispatcher is active', readBy: ['dispatcher'], shownDefault: 'the bound address' })
  @HostPort()
  SHOAL_DISPATCHER_ADVERTISE?: string;

  @Setting({ meaning: 'a file holding the unlock key (SWMKEY-1-…), read at start to unlock a locked cluster key', readBy: ['dispatcher'] })
  SHOAL_UNLOCK_KEY_FILE?: string;

  @Setting({
    meaning: "the cluster's root CA (ca.pem, ca-key.pem; made there if missing): the dispatcher then speaks mutual TLS and issues nodes their certificates, and join tokens carry the CA's digest. The same directory on every API and dispatcher",
    readBy: ['api', 'dispatcher'],
    shownDefault: 'none: plain gRPC, for one host',
  })
  SHOAL_CA_DIR?: string;

  // The reaper's audit checkpoints

  @Setting({ meaning: 'PEM file: the Ed25519 key audit checkpoints are signed with; unset: no checkpoints', readBy: ['reaper', 'all-in-one'] })
  SHOAL_AUDIT_SIGNING_KEY?: string;

  @Setting({ meaning: "during a key rotation, the key the log's checkpoints are signed with now", readBy: ['reaper', 'all-in-one'] })
  SHOAL_AUDIT_PREVIOUS_KEY?: string;

  @Setting({ meaning: `records between two audit checkpoints (at most ${MAX_CHECKPOINT_RECORDS})`, readBy: ['reaper', 'all-in-one'] })
  @WholeNumber(`must be a whole number from 1 to ${MAX_CHECKPOINT_RECORDS}`, 1, MAX_CHECKPOINT_RECORDS)
  SHOAL_AUDIT_CHECKPOINT_RECORDS = 5_000;

  @Setting({ meaning: 'the longest a record waits to be signed, in seconds', readBy: ['reaper', 'all-in-one'] })
  @WholeNumber('must be a whole number of at least 1', 1)
  SHOAL_AUDIT_CHECKPOINT_SECONDS = 60;

  // Traces (OpenTelemetry's own variables; docs/observability.md)

  @Setting({ meaning: 'otlp: send traces over OTLP/HTTP to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; none: no traces', readBy: TRACERS, shownDefault: '`none`' })
  @OneOf(TRACES_EXPORTERS, { lowerCase: true })
  OTEL_TRACES_EXPORTER?: (typeof TRACES_EXPORTERS)[number];

  @Setting({ meaning: 'the OTLP/HTTP base URL: traces go to `<it>/v1/traces`', readBy: TRACERS, shownDefault: '`http://localhost:4318`' })
  @Rule<ShoalEnvironment>('otlpEndpoint', (url) => httpUrlProblem('OTEL_EXPORTER_OTLP_ENDPOINT', url))
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  @Setting({ meaning: 'the full URL traces are sent to; wins over OTEL_EXPORTER_OTLP_ENDPOINT', readBy: TRACERS, shownDefault: '`<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`' })
  @Rule<ShoalEnvironment>('otlpTracesEndpoint', (url) => httpUrlProblem('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', url))
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;

  @Setting({ meaning: "the service.name of this process's spans", readBy: TRACERS, shownDefault: '`shoal-<process>` (`shoal-api`, `shoal-scheduler`, …)' })
  OTEL_SERVICE_NAME?: string;

  @Setting({ meaning: `which traces are recorded: ${TRACES_SAMPLERS.join(', ')}`, readBy: TRACERS, shownDefault: '`parentbased_always_on`' })
  @OneOf(TRACES_SAMPLERS, { lowerCase: true })
  OTEL_TRACES_SAMPLER?: (typeof TRACES_SAMPLERS)[number];

  @Setting({ meaning: 'the ratio a traceidratio sampler records, from 0 to 1', readBy: TRACERS, shownDefault: '`1`' })
  @Rule<ShoalEnvironment>('samplerArg', (ratio) =>
    ratio === undefined || (typeof ratio === 'string' && /^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(ratio)) ? undefined : `OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, not "${String(ratio)}"`,
  )
  OTEL_TRACES_SAMPLER_ARG?: string;

  // The all-in-one process and the agent

  @Setting({ meaning: 'simulated nodes the all-in-one starts (none with the docker executor)', readBy: ['all-in-one'] })
  @WholeNumber('must be a whole number')
  SHOAL_SIM_NODES = 3;

  @Setting({ meaning: "what runs the all-in-one's nodes: sim (simulated), or docker (one node, its tasks containers on SHOAL_ENGINE)", readBy: ['all-in-one'] })
  @OneOf(EXECUTORS)
  SHOAL_EXECUTOR: (typeof EXECUTORS)[number] = 'sim';

  @Setting({ meaning: 'the Docker engine of the docker executor: unix:///path/to/docker.sock or tcp://host:port (the agent\'s --engine)', readBy: ['all-in-one', 'agent'] })
  SHOAL_ENGINE = 'unix:///var/run/docker.sock';

  @Setting({ meaning: "the cluster join token (SWMTKN-1-…), when --join-token is not given", readBy: ['agent'] })
  SHOAL_JOIN_TOKEN?: string;

  @Setting({ meaning: 'the dispatchers to join through (host:port, comma-separated), when --dispatcher is not given', readBy: ['agent'] })
  SHOAL_DISPATCHER?: string;

  @Setting({ meaning: "join over mutual TLS (the agent's --tls): pin the root CA by the join token's digest, and keep the node's certificate in --state-dir", readBy: ['agent'] })
  @Flag()
  SHOAL_DISPATCHER_TLS = false;
}
