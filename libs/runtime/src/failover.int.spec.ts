import { KafkaTestTopic, testBrokers } from '@shoal/testing';
import { describeFailoverFencing } from './failover.contract';

const brokers = testBrokers();

// Two clients on one topic: the active and the standby are as separate as two processes.
describeFailoverFencing('kafka', async () => {
  const topic = new KafkaTestTopic('failover', brokers);
  return { active: await topic.open('failover-a'), standby: await topic.open('failover-b') };
});
