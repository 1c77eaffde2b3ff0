/** The native audit surface under /shoal/v1: read-only, open to auditors. */
import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { VerifyReport } from '@shoal/runtime';
import { AuditEventsQuery, AuditStateQuery, ID_PARAM_SCHEMA, IdParam, statePoint } from './audit-query.dto';
import { dockerValidationPipe } from './docker-validation';
import { AuditPageDoc, AuditStateDoc, DOCKER_ERROR_SCHEMA, TaskExplanationDoc, TaskHistoryDoc, VerifyReportDoc } from './audit-responses';
import { AuditService } from './audit.service';
import { AuditProofDoc, AuditProofQuery, expectedPoint } from './audit-proof';
import type { AuditProof } from './audit-proof';
import type { AuditPage, AuditState, TaskHistory } from './audit.service';
import type { TaskExplanation } from './task-explain';

const ERROR = { schema: DOCKER_ERROR_SCHEMA };

@ApiTags('audit')
@Controller('shoal/v1')
export class AuditController {
  constructor(@Inject(AuditService) private readonly audit: AuditService) {}

  @Get('audit/events')
  @ApiOperation({
    summary: 'The log, paged; filtered by type, verdict and entity',
    description:
      'Each record with its position, envelope, data and evolve\'s verdict: applied, partial (some items of a batch refused), rejected (and why) or poison (unreadable, shown as stored).',
  })
  @ApiOkResponse({ type: AuditPageDoc })
  @ApiBadRequestResponse({ description: 'A query parameter is invalid: the field and the reason.', ...ERROR })
  events(@Query(dockerValidationPipe(AuditEventsQuery)) query: AuditEventsQuery): Promise<AuditPage> {
    return this.audit.events(query);
  }

  @Get('audit/state')
  @ApiOperation({
    summary: 'The whole cluster state at a point of the log, and its hash',
    description: 'Replays the log from offset 0 to that point: an offset (every record before it) or an ISO 8601 time.',
  })
  @ApiOkResponse({ type: AuditStateDoc })
  @ApiBadRequestResponse({ description: '`at` is neither an offset nor a time, or is past the end of the log.', ...ERROR })
  state(@Query(dockerValidationPipe(AuditStateQuery)) query: AuditStateQuery): Promise<AuditState> {
    return this.audit.stateAt(statePoint(query.at), query.at);
  }

  @Get('audit/tasks/:id/history')
  @ApiOperation({ summary: 'Every record that touched a task, in log order, with the scheduler\'s reason for its placement' })
  @ApiParam({ name: 'id', description: 'Task id', schema: ID_PARAM_SCHEMA })
  @ApiBadRequestResponse({ description: 'The id is not one (1–128 characters, no spaces or slashes).', ...ERROR })
  @ApiOkResponse({ type: TaskHistoryDoc })
  @ApiNotFoundResponse({ description: 'No record ever touched this task.', ...ERROR })
  history(@Param(dockerValidationPipe(IdParam)) params: IdParam): Promise<TaskHistory> {
    return this.audit.taskHistory(params.id);
  }

  @Get('audit/verify')
  @ApiOperation({
    summary: 'Replay the log and check that every replay agrees',
    description: 'The same as `shoal audit verify`: the whole log twice and from a snapshot made at its middle; hashes, tally, rejected and poison records.',
  })
  @ApiOkResponse({ type: VerifyReportDoc })
  verify(): Promise<VerifyReport> {
    return this.audit.verify();
  }

  @Get('audit/proof')
  @ApiOperation({
    summary: 'Prove the log against its signed checkpoints',
    description:
      'As `shoal audit verify`: every checkpoint\'s signature under the key published to this API (SHOAL_AUDIT_PUBLIC_KEY; else the first checkpoint\'s, trusted on first use), the chain and the state hash at each, and the first offset where the log differs from what was signed (changed, removed, inserted, reordered, truncated against `expect`). See docs/audit.md.',
  })
  @ApiOkResponse({ type: AuditProofDoc })
  @ApiBadRequestResponse({ description: '`expect` is not `<offset>:<chain hash>`.', ...ERROR })
  proof(@Query(dockerValidationPipe(AuditProofQuery)) query: AuditProofQuery): Promise<AuditProof> {
    return this.audit.proof(expectedPoint(query.expect));
  }

  @Get('tasks/:id/explain')
  @ApiTags('tasks')
  @ApiOperation({
    summary: 'Why a task is not running',
    description: 'Unschedulable (the scheduler\'s explanation), allocation failure, restart delay, node down, shutting down, ended (and what replaced it).',
  })
  @ApiParam({ name: 'id', description: 'Task id', schema: ID_PARAM_SCHEMA })
  @ApiBadRequestResponse({ description: 'The id is not one (1–128 characters, no spaces or slashes).', ...ERROR })
  @ApiOkResponse({ type: TaskExplanationDoc })
  @ApiNotFoundResponse({ description: 'No such task in the current state.', ...ERROR })
  explain(@Param(dockerValidationPipe(IdParam)) params: IdParam): TaskExplanation {
    return this.audit.explain(params.id, new Date());
  }
}
