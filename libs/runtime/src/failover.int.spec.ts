import { randomUUID } from 'node:crypto';
import { KafkaEventLog } from '@shoal/eventlog';
import { describeFailoverFencing } from './failover.contract';

const brokers = (process.env.KAFKA_BROKERS ?? '').split(',').filter(Boolean);
if (brokers.length === 0) throw new Error('KAFKA_BROKERS is not set: run these tests through jest, whose global setup starts a broker.');

// Two clients on one topic: the active and the standby are as separate as two processes.
describeFailoverFencing('kafka', async () => {
  const topic = `shoal-test-${randomUUID()}.events`;
  const active = await KafkaEventLog.open({ brokers, topic, clientId: 'failover-a' });
  const standby = await KafkaEventLog.open({ brokers, topic, clientId: 'failover-b' });
  return { active, standby };
});
