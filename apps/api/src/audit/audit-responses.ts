/**
 * The audit surface's answers as OpenAPI schemas. Each class implements the answer's
 * interface, so the document cannot drift from what the service returns.
 */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { VERDICT_CODES } from '@shoal/domain';
import type { Refusal, StateData, Tally, VerdictCode } from '@shoal/domain';
import type { ReplayCheck, VerifyReport } from '@shoal/runtime';
import type { AuditPage, AuditRecord, AuditState, AuditVerdict, TaskHistory, TaskHistoryEntry } from './audit.service';
import type { EntityKind, EntityRef } from './entities';
import type { ExplainReason, TaskExplanation } from './task-explain';

const VERDICTS = ['applied', 'partial', 'rejected', 'poison'] as const;

export class AuditVerdictDoc implements AuditVerdict {
  @ApiProperty({ enum: VERDICTS })
  status!: AuditVerdict['status'];

  @ApiProperty({ type: [String], description: 'Why something was refused: one reason per refused item.' })
  reasons!: string[];

  @ApiProperty({ enum: VERDICT_CODES, isArray: true, description: 'The stable code of each reason, in the same order.' })
  codes!: VerdictCode[];
}

export class EntityRefDoc implements EntityRef {
  @ApiProperty({ enum: ['cluster', 'service', 'task', 'node', 'network', 'config'] })
  kind!: EntityKind;

  @ApiProperty()
  id!: string;
}

export class AuditRecordDoc implements AuditRecord {
  @ApiProperty({ description: "The record's position in the log." })
  offset!: number;

  @ApiProperty({ type: AuditVerdictDoc })
  verdict!: AuditVerdictDoc;

  @ApiPropertyOptional()
  id?: string;

  @ApiPropertyOptional({ example: 'TasksAssigned' })
  type?: string;

  @ApiPropertyOptional({ description: 'Schema version.' })
  v?: number;

  @ApiPropertyOptional({ description: "The writer's clock, ISO 8601." })
  at?: string;

  @ApiPropertyOptional({ example: 'scheduler/host-1-4242-ab12@3', description: 'component/instance@term' })
  by?: string;

  @ApiPropertyOptional()
  seq?: number;

  @ApiPropertyOptional()
  correlation?: string;

  @ApiPropertyOptional()
  causation?: string;

  @ApiPropertyOptional({ type: [EntityRefDoc] })
  entities?: EntityRefDoc[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: "The event's data." })
  data?: unknown;

  @ApiPropertyOptional({ description: "A poison record's bytes as stored (cut at 4 KiB)." })
  raw?: string;
}

export class AuditPageDoc implements AuditPage {
  @ApiProperty()
  from!: number;

  @ApiProperty({ type: Number, nullable: true, description: 'Where the next page starts; null at the end of the log.' })
  next!: number | null;

  @ApiProperty()
  highWaterMark!: number;

  @ApiProperty({ type: [AuditRecordDoc] })
  records!: AuditRecordDoc[];
}

export class TallyDoc implements Tally {
  @ApiProperty() applied!: number;
  @ApiProperty() partial!: number;
  @ApiProperty() rejected!: number;
  @ApiProperty() poison!: number;
  @ApiProperty({ description: 'Records read at an older schema version and upcast.' }) upcast!: number;
}

export class AuditStateDoc implements AuditState {
  @ApiProperty({ description: 'Every record before this offset is in the state.' })
  position!: number;

  @ApiProperty()
  highWaterMark!: number;

  @ApiPropertyOptional({ description: 'The `at` asked for.' })
  at?: string;

  @ApiProperty({ description: "SHA-256 of the state's canonical form: a fresh replay to the same position gives the same hash." })
  hash!: string;

  @ApiProperty({ type: TallyDoc })
  tally!: TallyDoc;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The whole state: {format, cluster, services, tasks, nodes, networks, configs (when there are any), terms, writers}.',
  })
  state!: StateData;
}

export class TaskHistoryEntryDoc extends AuditRecordDoc implements TaskHistoryEntry {
  @ApiProperty({ enum: ['applied', 'refused'], description: "Whether this task's own item of the record applied." })
  outcome!: 'applied' | 'refused';

  @ApiProperty({ type: 'object', additionalProperties: true, description: "The record's item about this task." })
  item!: unknown;
}

export class TaskHistoryDoc implements TaskHistory {
  @ApiProperty()
  task!: string;

  @ApiProperty({ type: String, nullable: true, description: "The scheduler's reason for the task's placement." })
  placement!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The scheduler's last explanation why it could not place the task." })
  unschedulable!: string | null;

  @ApiProperty({ type: [TaskHistoryEntryDoc] })
  records!: TaskHistoryEntryDoc[];

  @ApiPropertyOptional({
    description: 'Present when the story index beside the snapshots answered (`shoal audit index`): the records before `through` came from it, `digest` names it.',
    type: 'object',
    properties: { through: { type: 'integer' }, digest: { type: 'string' } },
  })
  index?: { through: number; digest: string };
}

export class ReplayCheckDoc implements ReplayCheck {
  @ApiProperty() name!: string;
  @ApiProperty() position!: number;
  @ApiProperty() hash!: string;
  @ApiProperty() agrees!: boolean;
}

export class RefusalDoc implements Refusal {
  @ApiProperty() offset!: number;
  @ApiPropertyOptional() id?: string;
  @ApiPropertyOptional() type?: string;
  @ApiPropertyOptional() by?: string;
  @ApiProperty({ enum: ['partial', 'rejected', 'poison'] }) status!: Refusal['status'];
  @ApiProperty({ type: [String] }) reasons!: string[];
  @ApiProperty({ enum: VERDICT_CODES, isArray: true }) codes!: VerdictCode[];
}

export class VerifyReportDoc implements VerifyReport {
  @ApiProperty({ description: 'Which log was replayed.' }) log!: string;
  @ApiProperty() highWaterMark!: number;
  @ApiProperty() hash!: string;
  @ApiProperty({ description: 'Every replay reached the same hash.' }) agree!: boolean;
  @ApiProperty({ type: [ReplayCheckDoc] }) checks!: ReplayCheckDoc[];
  @ApiProperty({ type: TallyDoc }) tally!: TallyDoc;
  @ApiProperty({ type: [RefusalDoc] }) refusals!: RefusalDoc[];
}

const REASONS: readonly ExplainReason[] = [
  'running',
  'shutting-down',
  'restart-delay',
  'allocation-failed',
  'awaiting-allocation',
  'unschedulable',
  'awaiting-scheduling',
  'node-down',
  'starting',
  'ended',
];

export class TaskExplanationDoc implements TaskExplanation {
  @ApiProperty() task!: string;
  @ApiProperty() service!: string;
  @ApiPropertyOptional() serviceName?: string;
  @ApiPropertyOptional() slot?: number;
  @ApiPropertyOptional() node?: string;
  @ApiProperty({ example: 'PENDING' }) state!: TaskExplanation['state'];
  @ApiProperty({ example: 'RUNNING' }) desiredState!: TaskExplanation['desiredState'];
  @ApiProperty() running!: boolean;
  @ApiProperty({ enum: REASONS }) reason!: ExplainReason;
  @ApiProperty({ example: 'unschedulable: no suitable node (insufficient resources on 3 nodes)' }) explanation!: string;
  @ApiPropertyOptional({ description: "The scheduler's reason for the placement." }) placement?: string;
  @ApiPropertyOptional({ description: 'Restart delay: when the task may start.' }) startsAt?: string;
  @ApiPropertyOptional() replacedBy?: string;
}

export const DOCKER_ERROR_SCHEMA = { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] };
