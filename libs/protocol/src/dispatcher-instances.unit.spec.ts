import { Metadata } from '@grpc/grpc-js';
import { DISPATCHER_REDIRECT_KEY, addressOfInstance, instanceWithAddress, isDispatcherAddress, redirectOf } from './dispatcher-instances';

describe('where dispatchers are', () => {
  it('takes host:port, an IPv6 host in brackets, and nothing else as a dispatcher address', () => {
    for (const address of ['127.0.0.1:2377', 'manager-1.example:2377', '[::1]:2377', '[fe80::1%eth0]:2377']) expect(isDispatcherAddress(address)).toBe(true);
    for (const text of ['::1:2377', 'host', 'host:port', ' host:2377', 'a,b:2377', '[::1]', '[]:2377', 'host:123456']) expect(isDispatcherAddress(text)).toBe(false);
  });

  it('reads the address back out of an instance name, after its last @', () => {
    expect(addressOfInstance(instanceWithAddress('dispatcher-h-1@x', '[::1]:2377'))).toBe('[::1]:2377');
    expect(addressOfInstance('dispatcher-h-1')).toBeUndefined();
    expect(addressOfInstance('dispatcher-h-1@')).toBeUndefined();
  });

  it('reads the active dispatcher from a refusal’s trailer, if it names one', () => {
    const metadata = new Metadata();
    metadata.set(DISPATCHER_REDIRECT_KEY, ' 10.0.0.2:2377 ');
    expect(redirectOf({ code: 9, metadata })).toBe('10.0.0.2:2377');
    expect(redirectOf({ code: 9, metadata: new Metadata() })).toBeUndefined();
    expect(redirectOf(new Error('no metadata'))).toBeUndefined();
  });
});
