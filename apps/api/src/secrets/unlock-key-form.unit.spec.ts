import { hasUnlockKeyForm } from './unlock-key-form';

describe("an unlock key's form, as SwarmKit reads it before trying it", () => {
  const key = `SWMKEY-1-${Buffer.alloc(32, 7).toString('base64').replace(/=+$/, '')}`;

  it('is SWMKEY-1- and unpadded base64 of any length a decoder takes (line breaks skipped)', () => {
    for (const text of [key, 'SWMKEY-1-AAAA', 'SWMKEY-1-AA', 'SWMKEY-1-AAA', 'SWMKEY-1-', `${key}\n`, `${key}\r\n`]) expect({ text, form: hasUnlockKeyForm(text) }).toEqual({ text, form: true });
  });

  it('is not: no prefix, another prefix or a space before it, padding, a character out of the alphabet, a lone last character', () => {
    for (const text of ['', 'not a key', key.slice('SWMKEY-1-'.length), `SWMKEY-2-${key.slice(9)}`, ` ${key}`, `${key}=`, 'SWMKEY-1-AA==', 'SWMKEY-1-!!!', 'SWMKEY-1-AA-_', `${key} `, 'SWMKEY-1-A', 'SWMKEY-1-AAAAA']) {
      expect({ text, form: hasUnlockKeyForm(text) }).toEqual({ text, form: false });
    }
  });
});
