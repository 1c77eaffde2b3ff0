import fc from 'fast-check';
import { MAX_CONFIG_BYTES, base64DecodedLength, isBase64 } from '@shoal/contracts';
import type { Config } from '@shoal/domain';
import { SpecError } from '@shoal/docker-api';
import { fromDockerConfigCreate, fromDockerConfigUpdate, toDockerConfig } from './config-mapper';

const config: Config = { id: 'cfg1', spec: { name: 'app-conf', labels: { a: '1' }, data: 'QQ==' }, version: 4, createdAt: 't0', updatedAt: 't1' };

describe('config data', () => {
  it('knows the decoded size of any base64 text without decoding it', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const text = Buffer.from(bytes).toString('base64');
        expect(isBase64(text)).toBe(true);
        expect(base64DecodedLength(text)).toBe(bytes.length);
      }),
    );
  });

  it('refuses what is not strict base64', () => {
    for (const text of ['YWI', 'YW=I', 'YWJj\n', 'a b=', 'YWJj====', '-_8=']) expect(isBase64(text)).toBe(false);
  });
});

describe("Docker's ConfigSpec → Shoal's", () => {
  it('takes a name, labels and data; empty labels are left out', () => {
    expect(fromDockerConfigCreate({ Name: 'x', Labels: { a: 'b' }, Data: 'QQ==' })).toEqual({ name: 'x', labels: { a: 'b' }, data: 'QQ==' });
    expect(fromDockerConfigCreate({ Name: 'x', Labels: {}, Data: 'QQ==' })).toEqual({ name: 'x', data: 'QQ==' });
  });

  it('holds up to MAX_CONFIG_BYTES, decoded', () => {
    const at = (bytes: number) => ({ Name: 'x', Data: Buffer.alloc(bytes).toString('base64') });
    expect(fromDockerConfigCreate(at(MAX_CONFIG_BYTES)).data).toHaveLength(Math.ceil(MAX_CONFIG_BYTES / 3) * 4);
    expect(() => fromDockerConfigCreate(at(MAX_CONFIG_BYTES + 1))).toThrow(new SpecError('Data', `config data must be larger than 0 and less than 1024000 bytes: this one is 1024000 bytes`));
  });

  it('lets an update change only the labels; the same bytes in other base64 are no change', () => {
    expect(fromDockerConfigUpdate({ Name: 'app-conf', Labels: { b: '2' }, Data: 'QQ==' }, config)).toEqual({ name: 'app-conf', labels: { b: '2' }, data: 'QQ==' });
    // "QR==" decodes to the same byte as "QQ==" (Go and Node ignore the unused bits): the stored text stays.
    expect(fromDockerConfigUpdate({ Name: 'app-conf', Data: 'QR==' }, config)).toEqual({ name: 'app-conf', data: 'QQ==' });
    expect(() => fromDockerConfigUpdate({ Name: 'app-conf', Data: 'Qg==' }, config)).toThrow(/^invalid Data: only updates to labels are allowed/);
    expect(() => fromDockerConfigUpdate({ Name: 'other', Data: 'QQ==' }, config)).toThrow(/^invalid Name: only updates to labels are allowed/);
  });
});

describe("Shoal's config → Docker's Config", () => {
  it('carries the version as Version.Index, the times, and the spec with its data', () => {
    expect(toDockerConfig(config)).toEqual({
      ID: 'cfg1',
      Version: { Index: 4 },
      CreatedAt: 't0',
      UpdatedAt: 't1',
      Spec: { Name: 'app-conf', Labels: { a: '1' }, Data: 'QQ==' },
    });
  });
});
