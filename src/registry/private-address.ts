/**
 * Addresses an endpoint url must not point at unless the registry allows it
 * (`supervisor.allow_private_endpoints`): link-local ranges, where cloud
 * metadata services answer with credentials, unique-local IPv6, and the
 * well-known metadata host names. Loopback and ordinary private networks stay
 * allowed: that is where back-office agents usually live. Only literal
 * addresses and known names are judged; a name is not resolved at load.
 */
import { BlockList, isIP } from 'node:net';

const METADATA_HOSTS = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);

/** Why a url points at a refused address, or undefined when it does not. */
export type PrivateAddressCheck = (url: URL) => string | undefined;

/** Builds the check (its address block list); one per registry build. */
export function createPrivateAddressCheck(): PrivateAddressCheck {
  const blocked = new BlockList();
  blocked.addSubnet('169.254.0.0', 16, 'ipv4');
  blocked.addAddress('100.100.100.200', 'ipv4');
  blocked.addSubnet('fe80::', 10, 'ipv6');
  blocked.addSubnet('fc00::', 7, 'ipv6');
  return (url) => privateAddressProblem(url, blocked);
}

function privateAddressProblem(url: URL, blocked: BlockList): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  if (METADATA_HOSTS.has(host)) return 'a cloud metadata host name';
  const family = isIP(host);
  if (family === 4 && blocked.check(host, 'ipv4')) return 'a link-local or metadata address';
  if (family === 6) {
    // An IPv4-mapped IPv6 address is judged by its IPv4 part.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host)?.[1];
    if (mapped && blocked.check(mapped, 'ipv4')) return 'a link-local or metadata address';
    const mappedHex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
    if (mappedHex) {
      const value = (parseInt(mappedHex[1]!, 16) << 16) | parseInt(mappedHex[2]!, 16);
      const dotted = [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join('.');
      if (blocked.check(dotted, 'ipv4')) return 'a link-local or metadata address';
    }
    if (blocked.check(host, 'ipv6')) return 'a link-local or unique-local address';
  }
  return undefined;
}
