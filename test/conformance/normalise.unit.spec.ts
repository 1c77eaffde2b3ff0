import { differences } from './differences';
import { cliLine, errorShape, inNameOrder, logPayload, normalise } from './normalise';

describe('the conformance normaliser', () => {
  it('erases ids, times, versions, join tokens and allocated addresses, and nothing else', () => {
    const answer = {
      ID: 'yetac6rw1ztlzjxv4a37uzcgn',
      Version: { Index: 11 },
      CreatedAt: '2026-11-25T23:34:45.943052452Z',
      Spec: { Name: 'web', TaskTemplate: { Networks: [{ Target: 'abcdefghijklmnopqrstuvwxy' }, { Target: 'frontend' }] } },
      JoinTokens: { Worker: 'SWMTKN-1-a-b' },
      Endpoint: { VirtualIPs: [{ NetworkID: 'abcdefghijklmnopqrstuvwxy', Addr: '10.0.5.2/24' }] },
    };
    expect(normalise(answer)).toEqual({
      ID: '<id>',
      Version: { Index: '<index>' },
      CreatedAt: '<time>',
      Spec: { Name: 'web', TaskTemplate: { Networks: [{ Target: '<id>' }, { Target: 'frontend' }] } },
      JoinTokens: { Worker: '<token>' },
      Endpoint: { VirtualIPs: [{ NetworkID: '<id>', Addr: '<allocated>' }] },
    });
  });

  it('erases the addresses an allocator gave a network, inspected alone or in a list', () => {
    const network = { Name: 'n', IPAM: { Driver: 'default', Config: [{ Subnet: '10.0.4.0/24', Gateway: '10.0.4.1' }] } };
    const erased = { Name: 'n', IPAM: { Driver: 'default', Config: [{ Subnet: '<allocated>', Gateway: '<allocated>' }] } };
    expect(normalise(network)).toEqual(erased);
    expect(normalise([network])).toEqual([erased]);
  });

  it("erases an event message's id and times, keeping its type, action and attributes", () => {
    const message = { Type: 'service', Action: 'update', Actor: { ID: 'p57l3hdetbwiiyktoe8ptxh62', Attributes: { name: 'web', 'image.new': 'b' } }, scope: 'swarm', time: 1795802117, timeNano: 1795802117682439000 };
    expect(normalise(message)).toEqual({ Type: 'service', Action: 'update', Actor: { ID: '<id>', Attributes: { name: 'web', 'image.new': 'b' } }, scope: 'swarm', time: '<time>', timeNano: '<time>' });
  });

  it("erases what a node's machine is (hostname, platform, CPUs, memory, engine), alone or in a list, keeping which fields it has", () => {
    const node = {
      Spec: { Role: 'manager' },
      Description: {
        Hostname: 'vm',
        Platform: { Architecture: 'x86_64', OS: 'linux' },
        Resources: { NanoCPUs: 2e9, MemoryBytes: 8e9 },
        Engine: { EngineVersion: '20.10.24', Plugins: [{ Type: 'Log', Name: 'syslog' }] },
      },
      ManagerStatus: { Addr: '127.0.0.1:2377' },
    };
    const erased = {
      Spec: { Role: 'manager' },
      Description: {
        Hostname: '<machine>',
        Platform: { Architecture: '<machine>', OS: '<machine>' },
        Resources: { NanoCPUs: '<machine>', MemoryBytes: '<machine>' },
        Engine: { EngineVersion: '<machine>', Plugins: '<machine>' },
      },
      ManagerStatus: { Addr: '127.0.0.1:2377' },
    };
    expect(normalise(node)).toEqual(erased);
    expect(normalise([node])).toEqual([erased]);
    expect(normalise({ Spec: { TaskTemplate: { ContainerSpec: { Hostname: 'web' } } } })).toEqual({ Spec: { TaskTemplate: { ContainerSpec: { Hostname: 'web' } } } });
  });

  it("erases the address a node connects from, alone or in a list, keeping its state and a manager's own address", () => {
    const node = { Status: { State: 'ready', Addr: '10.213.0.2' }, ManagerStatus: { Reachability: 'reachable', Addr: '10.213.0.2:2377' } };
    const erased = { Status: { State: 'ready', Addr: '<address>' }, ManagerStatus: { Reachability: 'reachable', Addr: '10.213.0.2:2377' } };
    expect(normalise(node)).toEqual(erased);
    expect(normalise([node])).toEqual([erased]);
    expect(normalise({ Spec: { Status: { Addr: 'x' } } })).toEqual({ Spec: { Status: { Addr: 'x' } } });
  });

  it('puts a list of named objects in the order of their names, and leaves anything else as it is', () => {
    const listed = [{ ID: 'b1', Spec: { Name: 'web' } }, { ID: 'a2', Spec: { Name: 'api' } }, { ID: 'c3', Spec: { Name: 'db' } }];
    expect(inNameOrder(listed)).toEqual([listed[1], listed[2], listed[0]]);
    expect(listed.map((item) => item.Spec.Name)).toEqual(['web', 'api', 'db']);
    expect(inNameOrder({ message: 'x' })).toEqual({ message: 'x' });
  });

  it("compares errors by their shape, Docker's {\"message\": string}", () => {
    expect(errorShape({ message: 'rpc error: code = NotFound' })).toEqual({ message: '<message>' });
    expect(errorShape({ message: 'x', extra: 1 })).toEqual({ message: 'x', extra: 1 });
  });
});

describe('differences', () => {
  it('names every path where two answers differ, and none when they agree', () => {
    expect(differences({ A: 1, B: [1, { C: 'x' }] }, { A: 1, B: [1, { C: 'x' }] })).toEqual([]);
    expect(differences({ A: 1, B: { C: 'x' }, D: null }, { A: 2, B: { C: 'y', E: true } })).toEqual([
      'A: engine 1, shoal 2',
      'B.C: engine "x", shoal "y"',
      'B.E: engine absent, shoal true',
      'D: engine null, shoal absent',
    ]);
  });

  it("erases a running task's container id and PID, keeping its exit code", () => {
    const status = { State: 'running', Message: 'started', ContainerStatus: { ContainerID: 'c2e9fc2046aa9a52ba254ce5af288770d6a95a201ca6a224f50630bc4ca279f2', PID: 21547, ExitCode: 0 } };
    expect(normalise(status)).toEqual({ State: 'running', Message: 'started', ContainerStatus: { ContainerID: '<id>', PID: '<pid>', ExitCode: 0 } });
  });

  it("erases a log line's time and its task context's ids, keeping the keys, their order and the line", () => {
    const payload = '2026-11-27T20:57:57.434884151Z com.docker.swarm.node.id=mfvw7njzfxtkqxagokw9qqomz,com.docker.swarm.service.id=ejnm502suijoa1vtnydov9jv5,com.docker.swarm.task.id=p6o4b8akov4vrlh4eefel0v2o hello 2026\n';
    expect(logPayload(payload)).toBe('<time> com.docker.swarm.node.id=<id>,com.docker.swarm.service.id=<id>,com.docker.swarm.task.id=<id> hello 2026\n');
    expect(logPayload('one on stdout\n')).toBe('one on stdout\n');
  });

  it("erases what the docker CLI prints of times and task ids, keeping the rest of the line", () => {
    expect(cliLine('2026-11-27T20:57:57.434884151Z web.1.p6o4b8akov4v@vm    | hello')).toBe('<time> web.1.<id>@vm    | hello');
    expect(cliLine('web.2.p6o4b8akov4vrlh4eefel0v2o@vm | hello')).toBe('web.2.<id>@vm | hello');
    expect(cliLine('web.2@vm | hello')).toBe('web.2@vm | hello');
    for (const ago of ['Running less than a second ago', 'Running 7 seconds ago', 'Running about a minute ago', 'Running 3 hours ago']) expect(cliLine(ago)).toBe('Running <ago>');
  });
});
