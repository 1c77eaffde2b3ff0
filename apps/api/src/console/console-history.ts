/**
 * The time machine's answers: the cluster as the console shows it at any point of the log,
 * and what differs between two points. Each point is the audit's own replay
 * (AuditService.stateAt), so the console and `GET /shoal/v1/audit/state` never disagree.
 */
import { Inject, Injectable } from '@nestjs/common';
import { fromStateData } from '@shoal/domain';
import type { ClusterState } from '@shoal/domain';
import { EVENT_LOG } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { AuditService } from '../audit/audit.service';
import { statePoint } from '../audit/audit-query.dto';
import { badRequest } from '../audit/docker-validation';
import { consoleDiff } from './console-diff';
import { consoleView } from './console-view';
import type { ConsoleDiff, ConsoleView } from './console-wire';
import { wallTimeBefore } from './wall-time';

interface PointState {
  readonly state: ClusterState;
  readonly position: number;
  readonly highWaterMark: number;
  readonly at?: string;
}

@Injectable()
export class ConsoleHistory {
  constructor(
    @Inject(AuditService) private readonly audit: AuditService,
    @Inject(EVENT_LOG) private readonly log: EventLog,
  ) {}

  /** The cluster at `at` (an offset or an ISO time; absent: now). */
  async viewAt(at: string | undefined): Promise<ConsoleView> {
    const point = await this.stateAt(at);
    return consoleView(point.state, point);
  }

  /** What changed from `from` to `to` (each an offset or an ISO time). */
  async diff(from: string, to: string): Promise<ConsoleDiff> {
    const end = await this.log.highWaterMark();
    for (const [field, value] of [['from', from], ['to', to]] as const) {
      const point = statePoint(value);
      if ('offset' in point && point.offset > end) throw badRequest(`${field}: offset ${point.offset} is past the end of the log (${end} records)`);
    }
    const before = await this.stateAt(from);
    const after = await this.stateAt(to);
    const where = (point: PointState) => ({ position: point.position, ...(point.at !== undefined ? { at: point.at } : {}) });
    return consoleDiff(before.state, after.state, where(before), where(after));
  }

  private async stateAt(at: string | undefined): Promise<PointState> {
    const answer = await this.audit.stateAt(statePoint(at), at);
    const wall = await wallTimeBefore(this.log, answer.position);
    return {
      state: fromStateData(answer.state),
      position: answer.position,
      highWaterMark: answer.highWaterMark,
      ...(wall !== undefined ? { at: wall } : {}),
    };
  }
}
