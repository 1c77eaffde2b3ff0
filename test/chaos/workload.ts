/**
 * The workload of a chaos run: a loop of creates, scales, updates (stop-first and
 * start-first) and removes through Docker's API, spread over the API processes there are,
 * one request at a time. Each answer it got is kept: a 2xx is an acknowledged write (an
 * Ack the log must hold); anything else (503 while the broker is down, a connection to a
 * killed API refused or cut) is counted and the loop goes on. Seeded, so a run can be
 * repeated.
 */
import { dockerApi } from '../../libs/testing/src/processes/docker-api';
import type { Ack } from './log-checks';

/** A small deterministic PRNG (mulberry32), so that a seed repeats a run's choices. */
export const prng = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

export interface WorkloadOptions {
  /** The API sockets to spread requests over; asked each time, as APIs come and go. */
  readonly sockets: () => readonly string[];
  readonly seed: number;
  /** At most this many services at once (default 8). */
  readonly maxServices?: number;
  /** At most this many replicas a service (default 4). */
  readonly maxReplicas?: number;
  /** The pause between two requests (default 250 ms). */
  readonly pauseMs?: number;
  /** How long one request may take before it counts as unanswered (default 20 s). */
  readonly requestTimeoutMs?: number;
}

interface Known {
  readonly id: string;
  readonly name: string;
  spec: DockerServiceSpec;
}

interface DockerServiceSpec {
  readonly Name: string;
  readonly TaskTemplate: { readonly ContainerSpec: { readonly Image: string }; readonly RestartPolicy: { readonly Condition: string; readonly Delay: number } };
  readonly Mode: { readonly Replicated: { readonly Replicas: number } };
  readonly UpdateConfig: { readonly Parallelism: number; readonly Delay: number; readonly Order: string; readonly Monitor: number; readonly FailureAction: string };
}

export interface WorkloadTally {
  requests: number;
  /** Answers by status ("201", "503", …), and "no answer" for a request that failed or timed out. */
  readonly answers: Record<string, number>;
}

const IMAGES = ['nginx:1.25', 'nginx:1.26', 'nginx:1.27', 'busybox:1.36', 'redis:7'];

export class Workload {
  readonly acks: Ack[] = [];
  readonly tally: WorkloadTally = { requests: 0, answers: {} };
  private readonly random: () => number;
  private readonly services: Known[] = [];
  private stopped = false;
  private loop?: Promise<void>;
  private next = 0;
  private named = 0;

  constructor(private readonly options: WorkloadOptions) {
    this.random = prng(options.seed);
  }

  start(): void {
    this.loop = this.run();
  }

  /** Stops after the request under way; resolves once it has. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  /** Services the workload believes exist (created and not removed, as far as it was told). */
  get live(): readonly { readonly id: string; readonly name: string }[] {
    return this.services;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      await this.step();
      await new Promise((resolve) => setTimeout(resolve, this.options.pauseMs ?? 250));
    }
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  private async step(): Promise<void> {
    const max = this.options.maxServices ?? 8;
    const roll = this.random();
    if (this.services.length === 0 || (roll < 0.3 && this.services.length < max)) return this.create();
    const service = this.pick(this.services);
    if (roll < 0.55) return this.scale(service);
    if (roll < 0.9) return this.update(service);
    return this.remove(service);
  }

  private replicas(): number {
    return 1 + Math.floor(this.random() * (this.options.maxReplicas ?? 4));
  }

  private async create(): Promise<void> {
    const name = `chaos-${++this.named}`;
    const spec: DockerServiceSpec = {
      Name: name,
      TaskTemplate: { ContainerSpec: { Image: this.pick(IMAGES) }, RestartPolicy: { Condition: 'any', Delay: 1_000_000_000 } },
      Mode: { Replicated: { Replicas: this.replicas() } },
      UpdateConfig: { Parallelism: 1 + Math.floor(this.random() * 2), Delay: 0, Order: this.random() < 0.5 ? 'start-first' : 'stop-first', Monitor: 1_000_000_000, FailureAction: 'pause' },
    };
    const answer = await this.request<{ ID?: string }>('POST', '/v1.47/services/create', spec);
    if (answer?.status === 201 && answer.body.ID) {
      this.acks.push({ kind: 'create', id: answer.body.ID, name });
      this.services.push({ id: answer.body.ID, name, spec });
    }
  }

  private scale(service: Known): Promise<void> {
    return this.change(service, { ...service.spec, Mode: { Replicated: { Replicas: this.replicas() } } });
  }

  private update(service: Known): Promise<void> {
    const images = IMAGES.filter((image) => image !== service.spec.TaskTemplate.ContainerSpec.Image);
    return this.change(service, {
      ...service.spec,
      TaskTemplate: { ...service.spec.TaskTemplate, ContainerSpec: { Image: this.pick(images) } },
      UpdateConfig: { ...service.spec.UpdateConfig, Order: this.random() < 0.5 ? 'start-first' : 'stop-first' },
    });
  }

  /** Sends `spec` as an update at the version the API has now. */
  private async change(service: Known, spec: DockerServiceSpec): Promise<void> {
    const current = await this.request<{ Version?: { Index: number } }>('GET', `/v1.47/services/${service.id}`);
    if (current?.status === 404) return this.forget(service);
    const version = current?.status === 200 ? current.body.Version?.Index : undefined;
    if (version === undefined) return;
    const answer = await this.request('POST', `/v1.47/services/${service.id}/update?version=${version}`, spec);
    if (answer?.status === 200) {
      this.acks.push({ kind: 'update', id: service.id, from: version });
      service.spec = spec;
    }
  }

  private async remove(service: Known): Promise<void> {
    const answer = await this.request('DELETE', `/v1.47/services/${service.id}`);
    if (answer?.status === 200) this.acks.push({ kind: 'remove', id: service.id });
    if (answer?.status === 200 || answer?.status === 404) this.forget(service);
  }

  private forget(service: Known): void {
    const at = this.services.indexOf(service);
    if (at >= 0) this.services.splice(at, 1);
  }

  /** One request to the next API; undefined when it got no answer in time. */
  private async request<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T } | undefined> {
    const sockets = this.options.sockets();
    if (sockets.length === 0) return undefined;
    const socket = sockets[this.next++ % sockets.length]!;
    this.tally.requests++;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), this.options.requestTimeoutMs ?? 20_000)));
    const answer = await Promise.race([dockerApi<T>(socket, method, path, body).catch(() => undefined), timeout]);
    clearTimeout(timer);
    const key = answer ? String(answer.status) : 'no answer';
    this.tally.answers[key] = (this.tally.answers[key] ?? 0) + 1;
    return answer;
  }
}
