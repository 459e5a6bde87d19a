/**
 * Addresses an endpoint url must not point at unless the registry allows it
 * (`supervisor.allow_private_endpoints`): link-local ranges, where cloud
 * metadata services answer with credentials, unique-local IPv6, and the
 * well-known metadata host names, also when an IPv6 address carries one of
 * those IPv4 addresses (mapped, compatible, NAT64, 6to4, Teredo forms).
 * Loopback and ordinary private networks stay
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
    // An IPv6 form that carries an IPv4 address (mapped, compatible, NAT64,
    // 6to4, Teredo) reaches that IPv4 address: judge each one it carries.
    for (const embedded of embeddedIpv4(host)) {
      if (blocked.check(embedded, 'ipv4')) return 'a link-local or metadata address';
    }
    if (blocked.check(host, 'ipv6')) return 'a link-local or unique-local address';
  }
  return undefined;
}

/** The eight 16-bit groups of a valid IPv6 address text (a dotted IPv4 tail included). */
function ipv6Groups(host: string): number[] {
  let text = host;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const dottedOf = (high: number, low: number) => [high >>> 8, high & 255, low >>> 8, low & 255].join('.');

/**
 * The IPv4 addresses an IPv6 address carries in the standard embeddings:
 * IPv4-mapped and IPv4-translated (`::ffff:a.b.c.d`, `::ffff:0:a.b.c.d`),
 * IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`, and the local-use
 * `64:ff9b:1::/48` read at its /96 position), 6to4 (`2002:AABB:CCDD::`) and
 * Teredo (`2001:0::`, server and obfuscated client address).
 */
function embeddedIpv4(host: string): string[] {
  const groups = ipv6Groups(host);
  if (groups.length !== 8 || groups.some((group) => !Number.isInteger(group))) return [];
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const last = dottedOf(g6, g7);
  const found: string[] = [];
  const zeroTo = (end: number) => groups.slice(0, end).every((group) => group === 0);
  if (zeroTo(5) && g5 === 0xffff) found.push(last); // mapped
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) found.push(last); // translated
  if (zeroTo(6) && (g6 !== 0 || g7 > 1)) found.push(last); // compatible (not :: or ::1)
  if (g0 === 0x64 && g1 === 0xff9b && (g2 === 0 || g2 === 1)) found.push(last); // NAT64
  if (g0 === 0x2002) found.push(dottedOf(g1, g2)); // 6to4
  if (g0 === 0x2001 && g1 === 0) found.push(dottedOf(g2, g3), dottedOf(g6 ^ 0xffff, g7 ^ 0xffff)); // Teredo
  return found;
}
