/**
 * The story index as the API reads it: `<data dir>/story-index`, beside the snapshots,
 * when it is there (`shoal audit index` builds it; nothing here writes it). On Kafka the
 * story's scattered records are read through a log of their own whose fetches are small,
 * opened on first use and closed with the module.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';
import { EVENT_LOG, KafkaEventLog } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { STORY_FETCH_BYTES, StoryReader } from '@shoal/runtime';
import type { StoryAnswer } from '@shoal/runtime';
import { API_CONFIG } from '../api.tokens';
import type { ApiConfig } from '../api.config';

@Injectable()
export class StorySource implements OnModuleDestroy {
  private reads?: Promise<EventLog>;
  private reader?: Promise<StoryReader>;

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Optional() @Inject(API_CONFIG) private readonly config?: Pick<ApiConfig, 'dataDir'>,
  ) {}

  /** Where the index is looked for; undefined without a data dir. */
  get dir(): string | undefined {
    return this.config ? join(this.config.dataDir, 'story-index') : undefined;
  }

  /** The story of `id` from the index, or why the index could not answer (absent, refused). */
  async story(id: string): Promise<StoryAnswer> {
    const dir = this.dir;
    if (dir === undefined) return { ok: false, reason: 'no data dir: no story index' };
    // No index, nothing opened: the log of small fetches is for an index to read from.
    if (!existsSync(join(dir, 'index.json'))) return { ok: false, reason: `no story index in ${dir}` };
    this.reader ??= this.readLog().then((reads) => new StoryReader(dir, reads, this.log));
    try {
      return await (await this.reader).story(id);
    } catch (error) {
      // The read log could not be opened (the broker out of reach): try again next time.
      this.reader = undefined;
      this.reads = undefined;
      return { ok: false, reason: (error as Error).message };
    }
  }

  private readLog(): Promise<EventLog> {
    if (!(this.log instanceof KafkaEventLog)) return Promise.resolve(this.log);
    this.reads ??= KafkaEventLog.open({ ...this.log.openedWith, clientId: 'shoal-api-story', fetchMaxBytes: STORY_FETCH_BYTES });
    return this.reads;
  }

  async onModuleDestroy(): Promise<void> {
    const reads = this.reads;
    this.reads = undefined;
    if (reads) await (await reads.catch(() => undefined))?.close();
  }
}
