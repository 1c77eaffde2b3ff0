/**
 * A config's bytes, decoded from the view's base64 once rather than once per node: a
 * service's config goes to every node that runs one of its tasks, and a 1000 KiB config
 * takes about a millisecond to decode. The bytes of the configs sent last are kept, up to
 * a budget; a config is fixed once created, so its id and data find its bytes.
 */
import type { AssignedConfig } from '@shoal/domain';

/** How many decoded bytes are kept at most. */
export const CONFIG_BYTES_BUDGET = 16 * 1024 * 1024;

export class ConfigBytes {
  /** Config id → its data and bytes, least recently sent first. */
  private readonly kept = new Map<string, { readonly data: string; readonly bytes: Buffer }>();
  private size = 0;

  constructor(private readonly budget = CONFIG_BYTES_BUDGET) {}

  bytesOf(config: AssignedConfig): Buffer {
    const hit = this.kept.get(config.id);
    if (hit) {
      this.kept.delete(config.id);
      this.size -= hit.bytes.length;
    }
    const bytes = hit && hit.data === config.data ? hit.bytes : Buffer.from(config.data, 'base64');
    if (bytes.length <= this.budget) {
      this.kept.set(config.id, { data: config.data, bytes });
      this.size += bytes.length;
      for (const [id, { bytes: oldest }] of this.kept) {
        if (this.size <= this.budget) break;
        this.kept.delete(id);
        this.size -= oldest.length;
      }
    }
    return bytes;
  }

  /** The bytes kept now (for the specs). */
  get keptBytes(): number {
    return this.size;
  }
}
