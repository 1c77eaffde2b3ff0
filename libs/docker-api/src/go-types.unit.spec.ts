import { GoDecodeError, go, goDecodeAs, openApiSchema } from './go-types';
import { SERVICE_SPEC } from './service-spec-type';

const decode = (body: unknown): unknown => goDecodeAs(SERVICE_SPEC, body);
const image = { TaskTemplate: { ContainerSpec: { Image: 'busybox' } } };

describe("a body decoded as Go's encoding/json decodes it into Docker's types", () => {
  it('matches keys case-insensitively, in order (a later key for the same field wins); null is unset; an unknown key is ignored', () => {
    expect(decode({ name: 'web', NAME: 'no', Name: 'yes', taskTemplate: { containerspec: { IMAGE: 'busybox', Env: null } }, Extra: 1, mode: null })).toEqual({
      Name: 'yes',
      TaskTemplate: { ContainerSpec: { Image: 'busybox' } },
    });
  });

  it('decodes a later key for a struct or a map into what an earlier one left, as Go does', () => {
    expect(decode({ Name: 'exact', name: 'later', ...image, taskTemplate: { ContainerSpec: { Env: ['A=1'] } }, Labels: { a: '1' }, labels: { b: '2' } })).toEqual({
      Name: 'later',
      TaskTemplate: { ContainerSpec: { Image: 'busybox', Env: ['A=1'] } },
      Labels: { a: '1', b: '2' },
    });
  });

  it("keeps a map's keys as they are: they are data", () => {
    expect(decode({ ...image, labels: { Tier: 'front', 'com.Example': 'a' } })).toEqual({ ...image, Labels: { Tier: 'front', 'com.Example': 'a' } });
  });

  it("leaves a map's or a list's null element at its zero value, as Go does", () => {
    expect(decode({ Name: 'a', Labels: { empty: null }, TaskTemplate: { ContainerSpec: { Image: 'b', Env: [null, 'A=1'] } } })).toEqual({
      Name: 'a',
      Labels: { empty: '' },
      TaskTemplate: { ContainerSpec: { Image: 'b', Env: ['', 'A=1'] } },
    });
  });

  // Each message is the one a Docker 20.10 engine in swarm mode answers for the same body.
  it.each<[string, unknown, string]>([
    ['a number for a string', { Name: 5, ...image }, 'json: cannot unmarshal number into Go struct field ServiceSpec.Name of type string'],
    ['a bool deep in the task', { Name: 'a', TaskTemplate: { ContainerSpec: { Image: true } } }, 'json: cannot unmarshal bool into Go struct field ContainerSpec.TaskTemplate.ContainerSpec.Image of type string'],
    ['a string for a list', { Name: 'a', TaskTemplate: { ContainerSpec: { Image: 'b', Env: 'A=1' } } }, 'json: cannot unmarshal string into Go struct field ContainerSpec.TaskTemplate.ContainerSpec.Env of type []string'],
    ['a number in a list of strings', { Name: 'a', TaskTemplate: { ContainerSpec: { Image: 'b', Env: [1] } } }, 'json: cannot unmarshal number into Go struct field ContainerSpec.TaskTemplate.ContainerSpec.Env of type string'],
    ['a number for a label', { Name: 'a', Labels: { x: 5 }, ...image }, 'json: cannot unmarshal number into Go struct field ServiceSpec.Labels of type string'],
    ['a string for a port (no index in the path)', { Name: 'a', ...image, EndpointSpec: { Ports: [{ TargetPort: 'x' }] } }, 'json: cannot unmarshal string into Go struct field PortConfig.EndpointSpec.Ports.TargetPort of type uint32'],
    ['a string for a bool in a mount', { Name: 'a', TaskTemplate: { ContainerSpec: { Image: 'b', Mounts: [{ Type: 'bind', ReadOnly: 'yes' }] } } }, 'json: cannot unmarshal string into Go struct field Mount.TaskTemplate.ContainerSpec.Mounts.ReadOnly of type bool'],
    ['a negative uint64', { Name: 'a', ...image, Mode: { Replicated: { Replicas: -2 } } }, 'json: cannot unmarshal number -2 into Go struct field ReplicatedService.Mode.Replicated.Replicas of type uint64'],
    ['a fraction for a uint64', { Name: 'a', ...image, Mode: { Replicated: { Replicas: 1.5 } } }, 'json: cannot unmarshal number 1.5 into Go struct field ReplicatedService.Mode.Replicated.Replicas of type uint64'],
    ['a string for a struct', { Name: 'a', ...image, Mode: 'x' }, 'json: cannot unmarshal string into Go struct field ServiceSpec.Mode of type swarm.ServiceMode'],
    ['an array for an empty struct', { Name: 'a', ...image, Mode: { Global: [] } }, 'json: cannot unmarshal array into Go struct field ServiceMode.Mode.Global of type swarm.GlobalService'],
    ['a string for a duration', { Name: 'a', TaskTemplate: { ContainerSpec: { Image: 'b' }, RestartPolicy: { Delay: '5s' } } }, 'json: cannot unmarshal string into Go struct field RestartPolicy.TaskTemplate.RestartPolicy.Delay of type time.Duration'],
    ['a string for a float32', { Name: 'a', ...image, UpdateConfig: { MaxFailureRatio: 'x' } }, 'json: cannot unmarshal string into Go struct field UpdateConfig.UpdateConfig.MaxFailureRatio of type float32'],
    ['an array for the whole body', [1], 'json: cannot unmarshal array into Go value of type swarm.ServiceSpec'],
    ['no body', undefined, 'got EOF while reading request body'],
  ])('refuses %s in Go\'s words', (_case, body, message) => {
    expect(() => decode(body)).toThrow(new GoDecodeError(message));
  });

  it('reports the first error in the body\'s order, as Go does', () => {
    expect(() => decode({ Name: 5, TaskTemplate: { ContainerSpec: { Image: 7 } } })).toThrow('ServiceSpec.Name of type string');
  });

  it("refuses a mode it does not know, where Go would ignore it and run one replica", () => {
    expect(() => decode({ Name: 'a', ...image, Mode: { Daemon: {} } })).toThrow(new GoDecodeError('invalid Mode: unknown mode "Daemon" (Replicated, Global, ReplicatedJob or GlobalJob)'));
    expect(decode({ Name: 'a', ...image, mode: { globaljob: {} } })).toEqual({ Name: 'a', ...image, Mode: { GlobalJob: {} } });
  });

  it('refuses an integer Go holds that a JSON number does not keep exact here, rather than round it', () => {
    expect(() => decode({ Name: 'a', ...image, Mode: { Replicated: { Replicas: 2 ** 60 } } })).toThrow(
      new GoDecodeError(`invalid Mode.Replicated.Replicas: ${2 ** 60} is past the largest integer Shoal keeps exact (9007199254740991)`),
    );
    expect(decode({ Name: 'a', ...image, Mode: { Replicated: { Replicas: Number.MAX_SAFE_INTEGER } } })).toMatchObject({ Mode: { Replicated: { Replicas: Number.MAX_SAFE_INTEGER } } });
  });

  it("gives the type's schema for /openapi.json", () => {
    const schema = openApiSchema(go.struct('swarm.Example', { Name: go.str(), Port: go.int('uint32'), Tags: go.slice(go.str()), Labels: go.map(go.str()), On: go.bool() }));
    expect(schema).toEqual({
      type: 'object',
      title: 'swarm.Example',
      properties: {
        Name: { type: 'string' },
        Port: { type: 'integer', minimum: 0, maximum: 4_294_967_295, format: 'uint32' },
        Tags: { type: 'array', items: { type: 'string' } },
        Labels: { type: 'object', additionalProperties: { type: 'string' } },
        On: { type: 'boolean' },
      },
    });
  });
});
