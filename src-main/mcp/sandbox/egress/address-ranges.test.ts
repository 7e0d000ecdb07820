import { describe, expect, it } from 'vitest';
import { nonPublicRange } from './address-ranges.js';

describe('non-public addresses', () => {
  it.each([
    ['127.0.0.1', 'loopback'], ['127.255.0.9', 'loopback'], ['0.0.0.0', 'unspecified'], ['10.1.2.3', 'private'], ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'], ['192.168.1.1', 'private'], ['169.254.169.254', 'link-local'], ['100.64.0.1', 'shared address space'],
    ['224.0.0.1', 'multicast'], ['255.255.255.255', 'reserved'], ['::', 'unspecified'], ['::1', 'loopback'], ['fc00::1', 'private'],
    ['fdff::1', 'private'], ['fe80::1', 'link-local'], ['fe80::1%eth0', 'link-local'], ['febf::1', 'link-local'], ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'], ['::ffff:7f00:1', 'IPv4-mapped loopback'], ['0:0:0:0:0:ffff:a00:1', 'IPv4-mapped private'],
    ['::10.0.0.1', 'IPv4-compatible private'], ['64:ff9b::7f00:1', 'NAT64 loopback'], ['2002:c0a8:101::1', '6to4 private'], ['not-an-ip', 'not an IP address'],
  ])('%s is %s', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });

  it.each([['93.184.216.34'], ['172.32.0.1'], ['172.15.255.255'], ['100.128.0.1'], ['2606:2800:220:1:248:1893:25c8:1946'], ['::ffff:93.184.216.34'], ['64:ff9b::5db8:d822'], ['2002:5db8:d822::1']])(
    '%s is public',
    (address) => {
      expect(nonPublicRange(address)).toBeNull();
    },
  );
});
