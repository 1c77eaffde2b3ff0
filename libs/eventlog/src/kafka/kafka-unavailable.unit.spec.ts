import { KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError, KafkaJSRequestTimeoutError } from 'kafkajs';
import { isBrokerUnreachable } from './kafka-unavailable';

describe('isBrokerUnreachable', () => {
  it('reads connection and timeout errors as the broker out of reach, under kafkajs retries too', () => {
    expect(isBrokerUnreachable(new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9092'))).toBe(true);
    expect(isBrokerUnreachable(new KafkaJSRequestTimeoutError('Request Produce(key: 0, version: 7) timed out'))).toBe(true);
    const refused = new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9092');
    expect(isBrokerUnreachable(new KafkaJSNumberOfRetriesExceeded(refused, { retryCount: 8, retryTime: 3000, cause: refused } as never))).toBe(true);
  });

  it("leaves the broker's refusals and anything else alone", () => {
    expect(isBrokerUnreachable(new KafkaJSProtocolError('The request included a message larger than the max message size the server will accept'))).toBe(false);
    expect(isBrokerUnreachable(new Error('something else'))).toBe(false);
    expect(isBrokerUnreachable('text')).toBe(false);
  });
});
