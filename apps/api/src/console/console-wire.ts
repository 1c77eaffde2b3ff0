/**
 * What the console's endpoints answer, as the browser reads it. Types only, importing
 * nothing: the server (Node) and the page (the browser bundle) both compile against it.
 */

/** A service as the console lists it. */
export interface ConsoleService {
  readonly id: string;
  readonly name: string;
  /** replicated, global, replicated-job, global-job */
  readonly mode: string;
  readonly image: string;
  /** Tasks RUNNING, and how many are wanted (Docker's ServiceStatus). */
  readonly running: number;
  readonly desired: number;
  /** The service's spec version: 1 at creation, +1 per update. */
  readonly version: number;
  /** Its rolling update or rollback, when it has one. */
  readonly update?: { readonly state: string; readonly message?: string };
}

/** A task as the console lists it. */
export interface ConsoleTask {
  readonly id: string;
  readonly service: string;
  readonly serviceName: string;
  readonly slot?: number;
  readonly node?: string;
  /** Observed and desired state, by name (RUNNING, SHUTDOWN, …). */
  readonly state: string;
  readonly desired: string;
  /** Its status message, or its error. */
  readonly message?: string;
}

/** A node as the console lists it, with its load. */
export interface ConsoleNode {
  readonly id: string;
  readonly hostname: string;
  readonly role: string;
  /** ready, down, unknown, disconnected */
  readonly status: string;
  /** active, pause, drain */
  readonly availability: string;
  /** Tasks assigned to it and not ended (ASSIGNED … RUNNING). */
  readonly tasks: number;
  /** CPU and memory reserved by those tasks, and what the node has (0: not reported). */
  readonly nanoCpus: { readonly reserved: number; readonly total: number };
  readonly memoryBytes: { readonly reserved: number; readonly total: number };
}

/** The whole cluster at one point of the log: now (live), or any past offset (the time machine). */
export interface ConsoleView {
  /** Every record before this offset is in the view. */
  readonly position: number;
  /** The log's end when the view was taken: the slider's range. */
  readonly highWaterMark: number;
  /** The writer's clock on the last record in the view (ISO 8601); absent on an empty log. */
  readonly at?: string;
  readonly cluster?: string;
  readonly services: readonly ConsoleService[];
  /** Tasks by observed state name. */
  readonly tasksByState: Readonly<Record<string, number>>;
  /** The tasks themselves, the newest first; at most `TASKS_LISTED` of `taskCount`. */
  readonly tasks: readonly ConsoleTask[];
  readonly taskCount: number;
  /** The nodes, those not ready or not active first; at most `NODES_LISTED` of `nodeCount`. */
  readonly nodes: readonly ConsoleNode[];
  readonly nodeCount: number;
  /** Nodes by status (ready, down, …). */
  readonly nodesByStatus: Readonly<Record<string, number>>;
  /** Services whose rolling update or rollback is under way (updating, paused, rollback_started, rollback_paused). */
  readonly updates: readonly ConsoleService[];
}

/** One field that differs between two points. */
export interface FieldChange {
  readonly field: string;
  readonly from: string;
  readonly to: string;
}

/** An entity present at both points whose fields differ. */
export interface EntityChange {
  readonly id: string;
  readonly name: string;
  readonly changes: readonly FieldChange[];
}

export interface EntityRef {
  readonly id: string;
  readonly name: string;
}

export interface KindDiff {
  readonly added: readonly EntityRef[];
  readonly removed: readonly EntityRef[];
  readonly changed: readonly EntityChange[];
}

/** What differs between the cluster at `from` and at `to`. */
export interface ConsoleDiff {
  readonly from: { readonly position: number; readonly at?: string };
  readonly to: { readonly position: number; readonly at?: string };
  readonly services: KindDiff;
  readonly tasks: KindDiff;
  readonly nodes: KindDiff;
}
