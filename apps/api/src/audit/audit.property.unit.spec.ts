/**
 * Properties of the audit over random histories (refusals and poison included): the
 * state at any offset has the hash a fresh replay to that offset reaches, every record's
 * verdict is the one a replay gives it (and a verdict filter finds exactly those), and an
 * entity's records are exactly those that name it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { decode } from '@shoal/contracts';
import { Projection, replay } from '@shoal/domain';
import { EmbeddedEventLog } from '@shoal/eventlog';
import { LiveView } from '@shoal/runtime';
import { histories } from '@shoal/testing';
import { AuditTrail } from './audit-trail';
import { AuditService } from './audit.service';
import { entityIdsOf } from './entities';

describe('audit properties', () => {
  it('state at any offset, verdicts and entity pages agree with a fresh replay', async () => {
    await fc.assert(
      fc.asyncProperty(histories(60), fc.nat(), fc.nat(), async (history, cutSeed, entitySeed) => {
        const dir = await mkdtemp(join(tmpdir(), 'shoal-audit-prop-'));
        const log = await EmbeddedEventLog.open({ dir, sync: false });
        const view = new LiveView(log);
        try {
          await log.append(history.map((value) => ({ key: 'c1', value })));
          await view.start();
          const audit = new AuditService(log, new AuditTrail(log), view);
          const records = history.map((value, offset) => ({ offset, value }));

          const cut = cutSeed % (history.length + 1);
          const state = await audit.stateAt({ offset: cut });
          expect(state.position).toBe(cut);
          expect(state.hash).toBe(replay(records, { to: cut }).hash());

          const page = await audit.events({ limit: 1_000 });
          const projection = new Projection(undefined, 0, { keepRefusals: 0 });
          const statuses = records.map((record) => projection.apply(record)!.status);
          expect(page.records.map((r) => r.verdict.status)).toEqual(statuses);
          for (const verdict of ['partial', 'rejected', 'poison'] as const) {
            const only = await audit.events({ verdict, limit: 1_000 });
            expect(only.records.map((r) => r.offset)).toEqual(statuses.flatMap((status, offset) => (status === verdict ? [offset] : [])));
          }

          const ids = [...new Set(history.flatMap((value) => {
            const decoded = decode(value);
            return decoded.ok ? entityIdsOf(decoded.event) : [];
          }))];
          if (ids.length > 0) {
            const entity = ids[entitySeed % ids.length]!;
            const touching = records.filter((record) => {
              const decoded = decode(record.value);
              return decoded.ok && entityIdsOf(decoded.event).includes(entity);
            });
            const byEntity = await audit.events({ entity, limit: 1_000 });
            expect(byEntity.records.map((r) => r.offset)).toEqual(touching.map((r) => r.offset));
          }
        } finally {
          await view.stop();
          await log.close();
          await rm(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 25 },
    );
  });
});
