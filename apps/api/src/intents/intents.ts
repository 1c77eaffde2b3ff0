/**
 * Intents: the API's writes. Each is one event appended through the API's EventWriter;
 * the answer waits for evolve's verdict on it, so a 2xx means the log has applied it and
 * the API's view already shows it (read-your-writes).
 */
import { randomUUID } from 'node:crypto';
import { HttpException, Inject, Injectable } from '@nestjs/common';
import { EVENT_SHAPES, upcast } from '@shoal/contracts';
import type { EventDataMap, EventType, Expectations, ShoalEvent } from '@shoal/contracts';
import type { Cluster, ClusterState, Refused } from '@shoal/domain';
import type { LiveView } from '@shoal/runtime';
import { API_VIEW, API_WRITER } from '../api.tokens';
import type { ApiEventWriter } from '../api-writer';
import { refusalAnswer, verdictAnswer } from './verdict-answer';

const NOT_A_SWARM =
  'This node is not a swarm manager. Use "docker swarm init" or "docker swarm join" to connect this node to swarm and try again.';

@Injectable()
export class Intents {
  constructor(
    @Inject(API_VIEW) private readonly view: LiveView,
    @Inject(API_WRITER) private readonly writer: ApiEventWriter,
  ) {}

  get state(): ClusterState {
    return this.view.state;
  }

  /** The cluster, or Docker's 503 when there is none yet. */
  cluster(): Cluster {
    const cluster = this.view.state.cluster;
    if (!cluster) throw new HttpException(NOT_A_SWARM, 503);
    return cluster;
  }

  /** The cluster id this API writes for (the one `docker swarm init` creates, on a log with none). */
  get clusterId(): string {
    return this.writer.currentCluster;
  }

  /** The domain's refusal of an intent, before anything is written, as Docker's error. */
  admit(refusal: Refused | undefined): void {
    if (!refusal) return;
    const answer = refusalAnswer(refusal);
    throw new HttpException(answer.message, answer.status);
  }

  /** Appends one intent and waits for evolve's verdict; a refusal throws Docker's error. */
  async submit<K extends EventType>(type: K, data: EventDataMap[K], expect?: Expectations): Promise<void> {
    await this.submitAll([this.propose(type, data, expect, randomUUID())]);
  }

  /**
   * Stamps an intent without appending it, for `submitAll`. The records of one API call
   * share a correlation id, so the audit shows them as one intent.
   */
  propose<K extends EventType>(type: K, data: EventDataMap[K], expect: Expectations | undefined, correlation: string): ShoalEvent {
    return this.writer.propose(type, data, { correlation, ...(expect ? { expect } : {}) }) as ShoalEvent;
  }

  async submitAll(events: readonly ShoalEvent[]): Promise<void> {
    if (events.length === 0) return;
    // The log must never get a record every reader would skip as poison: check the shape first (of a record at an older version, as readers will upcast it).
    for (const event of events) {
      const current = upcast(event.type, event.v, event.data);
      const problem = current.ok ? EVENT_SHAPES[event.type](current.data, 'data') : current.reason;
      if (problem) throw new HttpException(`invalid request: ${problem}`, 400);
    }
    const verdicts = await this.writer.appendAndWait(this.view, events);
    for (const verdict of verdicts) {
      const answer = verdictAnswer(verdict);
      if (!answer.ok) throw new HttpException(answer.message, answer.status);
    }
  }
}
