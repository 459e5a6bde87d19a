/**
 * Addresses an endpoint url must not point at unless the registry allows it
 * (`supervisor.allow_private_endpoints`): link-local ranges, where cloud
 * metadata services answer with credentials, unique-local IPv6, and the
 * well-known metadata host names. Loopback and ordinary private networks stay
 * allowed: that is where back-office agents usually live. At load only literal
 * addresses and known names are judged (a name is not resolved then); the
 * agent client judges every address a name resolves to when it connects
 * (`resolvedAddressProblem`, `src/agents/endpoint-fetch.ts`).
 */
import { BlockList, isIP } from 'node:net';

const METADATA_HOSTS = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);

/** Why a url points at a refused address, or undefined when it does not. */
export type PrivateAddressCheck = (url: URL) => string | undefined;

/** Why a resolved IP address is refused, or undefined when it is allowed (anything that is not an IP address included). */
export type ResolvedAddressCheck = (address: string) => string | undefined;

/** The ranges refused unless allowed: link-local v4 and v6, the Alibaba Cloud metadata address, unique-local v6. */
function refusedRanges(): BlockList {
  const blocked = new BlockList();
  blocked.addSubnet('169.254.0.0', 16, 'ipv4');
  blocked.addAddress('100.100.100.200', 'ipv4');
  blocked.addSubnet('fe80::', 10, 'ipv6');
  blocked.addSubnet('fc00::', 7, 'ipv6');
  return blocked;
}

/** Builds the check (its address block list); one per registry build. */
export function createPrivateAddressCheck(): PrivateAddressCheck {
  const blocked = refusedRanges();
  return (url) => {
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
    if (METADATA_HOSTS.has(host)) return 'a cloud metadata host name';
    return addressProblem(host, blocked);
  };
}

/**
 * Builds the connect-time check: the same ranges, applied to each address a
 * host name resolves to (a name that looked harmless at load may point at a
 * metadata service). One per agent client.
 */
export function createResolvedAddressCheck(): ResolvedAddressCheck {
  const blocked = refusedRanges();
  return (address) => addressProblem(address.replace(/^\[|\]$/g, '').toLowerCase().replace(/%.*$/, ''), blocked);
}

function addressProblem(host: string, blocked: BlockList): string | undefined {
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
