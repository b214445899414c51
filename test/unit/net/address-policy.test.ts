import { refusalReason } from '../../../src/net/address-policy';
import { HostAllowlist } from '../../../src/net/host-allowlist';

describe('refusalReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['2130706433', 'loopback'],
    ['0x7f.0.0.1', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['fc00::1', 'unique-local'],
    ['fdff::1', 'unique-local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['2002:7f00:1::1', '6to4'],
    ['::7f00:1', 'outside global unicast'],
    ['example.com', 'not an IP address'],
  ])('refuses %s (%s)', (address, why) => {
    expect(refusalReason(address)).toContain(why);
  });

  it.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '100.63.255.255', '172.32.0.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8'])(
    'allows the public address %s',
    (address) => {
      expect(refusalReason(address)).toBeNull();
    },
  );
});

describe('HostAllowlist', () => {
  const list = new HostAllowlist(['wiki.internal', 'Search.Corp:8080', '127.0.0.1:4000', '[::1]:5000', 'fd00::5']);

  it('matches a name on any port, case-insensitively', () => {
    expect(list.allows('WIKI.internal', 80)).toBe(true);
    expect(list.allows('wiki.internal.', 443)).toBe(true);
    expect(list.allows('other.internal', 80)).toBe(false);
  });

  it('matches a host:port entry on that port only', () => {
    expect(list.allows('search.corp', 8080)).toBe(true);
    expect(list.allows('search.corp', 8081)).toBe(false);
    expect(list.allows('127.0.0.1', 4000)).toBe(true);
    expect(list.allows('127.0.0.1', 4001)).toBe(false);
  });

  it('compares addresses by value, in any notation', () => {
    expect(list.allows('2130706433', 4000)).toBe(true);
    expect(list.allows('[::1]', 5000)).toBe(true);
    expect(list.allows('::1', 5000)).toBe(true);
    expect(list.allows('::1', 5001)).toBe(false);
    expect(list.allows('[fd00:0::5]', 1)).toBe(true);
  });

  it('allows nothing when empty', () => {
    expect(new HostAllowlist([]).allows('127.0.0.1', 80)).toBe(false);
  });
});
