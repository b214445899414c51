import { InvalidArgumentError } from 'commander';
import { parseRateLimit, parseRole, parseText, parseUuid } from '../../src/cli/options';

describe('parseUuid', () => {
  it('accepts a uuid and lower-cases it', () => {
    expect(parseUuid('3F2504E0-4F89-41D3-9A0C-0305E82C3301')).toBe('3f2504e0-4f89-41d3-9a0c-0305e82c3301');
  });

  it.each(['', 'nope', '3f2504e0-4f89-41d3-9a0c-0305e82c330', '3f2504e0-4f89-41d3-9a0c-0305e82c3301x'])('rejects %j', (value) => {
    expect(() => parseUuid(value)).toThrow(new InvalidArgumentError('It must be a uuid.'));
  });
});

describe('parseRole', () => {
  it.each(['owner', 'admin', 'member', 'viewer'])('accepts %s', (role) => {
    expect(parseRole(role)).toBe(role);
  });

  it.each(['', 'root', 'Owner'])('rejects %j', (value) => {
    expect(() => parseRole(value)).toThrow(new InvalidArgumentError('It must be one of owner, admin, member, viewer.'));
  });
});

describe('parseRateLimit', () => {
  it.each([
    ['0', 0],
    ['60', 60],
    ['2147483647', 2_147_483_647],
  ])('reads %j as %d', (value, limit) => {
    expect(parseRateLimit(value)).toBe(limit);
  });

  it.each(['', '-1', '1.5', '1e3', ' 5', 'ten', '2147483648', '99999999999999999999'])('rejects %j', (value) => {
    expect(() => parseRateLimit(value)).toThrow('It must be a whole number from 0 to 2147483647');
  });
});

describe('parseText', () => {
  it('drops surrounding spaces', () => {
    expect(parseText('  Acme Inc ')).toBe('Acme Inc');
  });

  it.each(['', '   '])('rejects %j', (value) => {
    expect(() => parseText(value)).toThrow(new InvalidArgumentError('It must not be empty.'));
  });
});
