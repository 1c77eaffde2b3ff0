import { logUnavailableMessage } from './log-unavailable-answer';

describe('logUnavailableMessage', () => {
  it('says not applied only when nothing was sent', () => {
    expect(logUnavailableMessage('no')).toBe('the event log is unavailable: the request was not applied; try again later');
    expect(logUnavailableMessage('unknown')).toMatch(/may or may not have been applied/);
    expect(logUnavailableMessage('unknown')).not.toMatch(/was not applied/);
  });
});
