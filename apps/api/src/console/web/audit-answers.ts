/** The audit endpoints' answers, as far as the console reads them (apps/api/src/audit). */

export interface HistoryRecord {
  readonly offset: number;
  readonly type?: string;
  readonly at?: string;
  /** component/instance@term */
  readonly by?: string;
  readonly verdict: { readonly status: string; readonly reasons: readonly string[] };
  /** Whether this task's own item of the record applied or was refused. */
  readonly outcome: 'applied' | 'refused';
  readonly item: unknown;
}

/** GET /shoal/v1/audit/tasks/:id/history */
export interface TaskHistory {
  readonly task: string;
  readonly placement: string | null;
  readonly unschedulable: string | null;
  readonly records: readonly HistoryRecord[];
}

/** GET /shoal/v1/audit/verify */
export interface VerifyReport {
  readonly log: string;
  readonly highWaterMark: number;
  readonly hash: string;
  readonly agree: boolean;
  readonly checks: readonly { readonly name: string; readonly position: number; readonly hash: string; readonly agrees: boolean }[];
  readonly tally: { readonly applied: number; readonly partial: number; readonly rejected: number; readonly poison: number; readonly upcast: number };
  readonly refusals: readonly { readonly offset: number; readonly type?: string; readonly status: string; readonly reasons: readonly string[] }[];
  readonly halted?: { readonly offset: number; readonly reason: string };
}
