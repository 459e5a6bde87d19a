/**
 * The fetch sub-agent requests go through. Endpoint urls are checked when the
 * registry loads, but only as written: a host name is not resolved then, and
 * may later resolve to a cloud metadata service or another link-local or
 * unique-local address. This fetch judges every address a name resolves to
 * at the moment it connects (undici's `connect.lookup` hook, so the address
 * checked is the address used — no second lookup a rebinding name could
 * answer differently), with the ranges refused at load
 * (`src/registry/private-address.ts`); loopback and private IPv4 networks stay
 * allowed, as at load. Agents of a registry with
 * `allow_private_endpoints: true` use an unchecked fetch.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { createResolvedAddressCheck } from '../registry/index.js';

/** Options of an endpoint fetch. */
export interface EndpointFetchOptions {
  /** Resolves host names (default `dns.lookup`); tests map names to chosen addresses. */
  lookup?: LookupFunction;
  /** Refuse connections to the link-local / metadata / unique-local ranges (default true). */
  refusePrivateRanges?: boolean;
}

/** The error a refused connection fails with (its text names no host or address). */
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

/** A fetch whose connections resolve names through `lookup`, refusing private ranges unless told otherwise. */
export function createEndpointFetch(options: EndpointFetchOptions = {}): typeof globalThis.fetch {
  const base = options.lookup ?? (dnsLookup as LookupFunction);
  const lookup = options.refusePrivateRanges === false ? base : refusingLookup(base);
  const dispatcher = new Agent({ connect: { lookup } });
  return ((input: Parameters<typeof globalThis.fetch>[0], init?: Parameters<typeof globalThis.fetch>[1]) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher })) as unknown as typeof globalThis.fetch;
}
