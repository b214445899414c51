import { ConfigError, loadConfig } from '../../src/config/load';

describe('TRUST_PROXY', () => {
  it('trusts no proxy by default, not even loopback', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
  });

  it.each([
    ['true', true],
    ['false', false],
    ['2', 2],
    ['10.0.0.0/8, 192.168.1.7,uniquelocal', ['10.0.0.0/8', '192.168.1.7', 'uniquelocal']],
    ['fd00::/8,::1', ['fd00::/8', '::1']],
  ])('reads %s as Express reads it', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it.each(['everything', '10.0.0.0/33', '300.1.1.1', 'loopback,,'])('refuses %s naming the variable', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY: /);
  });
});

describe('failed-authentication throttle settings', () => {
  it('has defaults, and 0 switches a limit off', () => {
    expect(loadConfig({})).toMatchObject({ authThrottleAddressLimit: 50, authThrottlePrefixLimit: 10, authThrottleWindowSeconds: 300 });
    expect(loadConfig({ AUTH_THROTTLE_ADDRESS_LIMIT: '0' }).authThrottleAddressLimit).toBe(0);
    expect(() => loadConfig({ AUTH_THROTTLE_WINDOW_SECONDS: '0' })).toThrow(/AUTH_THROTTLE_WINDOW_SECONDS/);
  });
});
