/**
 * The resolved-address check of sub-agent requests. Endpoint urls are checked
 * when the registry loads, but only as written: a host name is not resolved
 * then, and may later resolve to a cloud metadata service or another
 * link-local or unique-local address. `refusingLookup` fails a lookup when
 * any address of the name lies in a range refused at load
 * (`src/registry/private-address.ts`); loopback and private IPv4 networks
 * stay allowed, as at load. Agents of a registry with
 * `allow_private_endpoints: true` skip the check.
 *
 * The HTTP protocols' keep-alive pools (`agent-transport.ts`) use
 * `refusingLookup` as their connections' own lookup, so the address judged
 * is the address connected to. The fetch below (A2A, Agent Card fetches)
 * resolves the name before the request, and the connection resolves it again
 * (Node's fetch offers no hook into its own lookup); the system resolver
 * usually answers both from the same cached record. A name built to answer
 * differently on each lookup is outside what that fetch can stop: see
 * decision 0023.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { createResolvedAddressCheck } from '../registry/index.js';

/** Options of an endpoint fetch. */
export interface EndpointFetchOptions {
  /** The fetch requests go through once their host is judged (default `globalThis.fetch`). */
  fetch?: typeof globalThis.fetch;
  /** Resolves host names for the check (default `dns.lookup`); tests map names to chosen addresses. */
  lookup?: LookupFunction;
}

/** The error a refused request fails with (its text names no host or address). */
export class RefusedAddressError extends Error {
  readonly code = 'EADDRREFUSED';
  constructor(problem: string) {
    super(`the endpoint host resolves to ${problem}; refused unless supervisor.allow_private_endpoints is true`);
    this.name = 'RefusedAddressError';
  }
}

/** A lookup that fails, instead of answering, when any address of the name lies in a refused range. */
export function refusingLookup(lookup: LookupFunction = dnsLookup as LookupFunction): LookupFunction {
  const problemOf = createResolvedAddressCheck();
  return (hostname, options, callback) => {
    lookup(hostname, options, (error, address, family) => {
      if (error) {
        callback(error, address, family);
        return;
      }
      const addresses = Array.isArray(address) ? (address as LookupAddress[]).map((entry) => entry.address) : [address as string];
      for (const candidate of addresses) {
        const problem = problemOf(candidate);
        if (problem !== undefined) {
          callback(new RefusedAddressError(problem), Array.isArray(address) ? [] : '', family);
          return;
        }
      }
      callback(null, address, family);
    });
  };
}

/** A fetch that first resolves the url's host name and refuses link-local / metadata / unique-local addresses. */
export function createEndpointFetch(options: EndpointFetchOptions = {}): typeof globalThis.fetch {
  const fetchFunction = options.fetch ?? globalThis.fetch;
  const lookup = refusingLookup(options.lookup);
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // Literal addresses were judged when the registry loaded.
    if (isIP(host) === 0) {
      await new Promise<void>((resolve, reject) =>
        lookup(host, { all: true }, (error) => (error ? reject(new TypeError('fetch failed', { cause: error })) : resolve())),
      );
    }
    return fetchFunction(input, init);
  };
}
