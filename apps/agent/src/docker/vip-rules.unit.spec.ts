/** The rules that make a service's VIP answer on a node, from what the nat table holds. */
import { hairpinChain, nodeChain, readNatTable, restoreInput, serviceChain, staleAddresses } from './vip-rules';
import type { LocalVip } from './vip-rules';

const web: LocalVip = { serviceId: 'svc1', networkId: 'net1', bridge: 'br-0123456789ab', vip: '10.0.1.2', backends: ['10.0.1.5', '10.0.1.6', '10.0.1.7'] };
const api: LocalVip = { serviceId: 'svc2', networkId: 'net1', bridge: 'br-0123456789ab', vip: '10.0.1.3', backends: ['10.0.1.9'] };

const empty = readNatTable('*nat\n:PREROUTING ACCEPT [0:0]\nCOMMIT\n', 'node1');

/** `iptables-save -t nat` after the node's rules were restored (as the engine shows them, Docker's among them). */
const saved = (nodeId: string, input: string): string =>
  [
    '*nat',
    ':PREROUTING ACCEPT [0:0]',
    ':DOCKER - [0:0]',
    `-A PREROUTING -j ${nodeChain(nodeId)}`,
    '-A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER',
    `-A POSTROUTING -j ${hairpinChain(nodeId)}`,
    ...input.split('\n').filter((line) => line.startsWith(':') || line.startsWith('-A')),
    'COMMIT',
  ].join('\n');

describe('VIP rules', () => {
  it('names a node’s chains after it, within iptables’ 28 characters, one per service and network', () => {
    expect(nodeChain('node1')).toMatch(/^SHOAL-VIP-[0-9a-f]{8}$/);
    expect(nodeChain('node1')).not.toBe(nodeChain('node2'));
    expect(serviceChain('node1', web)).toHaveLength(28);
    expect(serviceChain('node1', web).startsWith(`${nodeChain('node1')}-`)).toBe(true);
    expect(serviceChain('node1', web)).not.toBe(serviceChain('node1', { ...web, networkId: 'net2' }));
  });

  it('jumps from PREROUTING first, matches each VIP coming in on its bridge, spreads it evenly over the tasks (the last taking what is left), and masquerades a task that reaches itself', () => {
    const [own, hairpin, chain] = [nodeChain('node1'), hairpinChain('node1'), serviceChain('node1', web)];
    expect(restoreInput('node1', [web], empty)?.split('\n')).toEqual([
      '*nat',
      `:${own} - [0:0]`,
      `:${hairpin} - [0:0]`,
      `:${chain} - [0:0]`,
      `-I PREROUTING 1 -j ${own}`,
      `-I POSTROUTING 1 -j ${hairpin}`,
      `-A ${own} -d 10.0.1.2/32 -i br-0123456789ab -j ${chain}`,
      `-A ${chain} -m statistic --mode random --probability 0.3333333333 -j DNAT --to-destination 10.0.1.5`,
      `-A ${chain} -m statistic --mode random --probability 0.5000000000 -j DNAT --to-destination 10.0.1.6`,
      `-A ${chain} -j DNAT --to-destination 10.0.1.7`,
      ...['10.0.1.5', '10.0.1.6', '10.0.1.7'].map((task) => `-A ${hairpin} -s ${task}/32 -d ${task}/32 -m conntrack --ctstate DNAT -j MASQUERADE`),
      'COMMIT',
      '',
    ]);
  });

  it('reads back what it wrote: a rewrite adds no second jump and deletes the chain of a VIP no longer wanted', () => {
    const table = readNatTable(saved('node1', restoreInput('node1', [web, api], empty)!), 'node1');
    expect(table).toMatchObject({ prerouting: true, postrouting: true });
    expect([...table.chains].sort()).toEqual([nodeChain('node1'), hairpinChain('node1'), serviceChain('node1', web), serviceChain('node1', api)].sort());
    expect(table.matched).toEqual([
      { chain: nodeChain('node1'), bridge: web.bridge, vip: '10.0.1.2' },
      { chain: nodeChain('node1'), bridge: api.bridge, vip: '10.0.1.3' },
    ]);
    const input = restoreInput('node1', [web], table)!;
    expect(input).not.toContain('PREROUTING');
    expect(input).not.toContain('POSTROUTING');
    expect(input).toContain(`:${serviceChain('node1', api)} - [0:0]`);
    expect(input.split('\n').slice(-3)).toEqual([`-X ${serviceChain('node1', api)}`, 'COMMIT', '']);
    expect(staleAddresses('node1', [web], table)).toEqual([{ bridge: api.bridge, vip: '10.0.1.3' }]);
  });

  it('with nothing wanted, the jumps and every chain of the node go, the node’s chain after those it references; with nothing there, nothing is done', () => {
    const table = readNatTable(saved('node1', restoreInput('node1', [web], empty)!), 'node1');
    const input = restoreInput('node1', [], table)!.split('\n');
    expect(input).toEqual(expect.arrayContaining([`-D PREROUTING -j ${nodeChain('node1')}`, `-D POSTROUTING -j ${hairpinChain('node1')}`]));
    expect(input.filter((line) => line.startsWith('-A'))).toEqual([]);
    expect(input.slice(-5)).toEqual([`-X ${serviceChain('node1', web)}`, `-X ${hairpinChain('node1')}`, `-X ${nodeChain('node1')}`, 'COMMIT', '']);
    expect(staleAddresses('node1', [], table)).toEqual([{ bridge: web.bridge, vip: '10.0.1.2' }]);
    expect(restoreInput('node1', [], empty)).toBeUndefined();
  });

  it('leaves another node’s chains be, and keeps a VIP address on the bridge while another node’s chain still matches it', () => {
    const other = saved('node2', restoreInput('node2', [web], empty)!);
    const table = readNatTable(`${saved('node1', restoreInput('node1', [web], empty)!)}\n${other}`, 'node1');
    expect([...table.chains].every((chain) => chain.startsWith(nodeChain('node1')))).toBe(true);
    expect(restoreInput('node1', [], table)).not.toContain(nodeChain('node2'));
    expect(staleAddresses('node1', [], table)).toEqual([]);
  });
});
