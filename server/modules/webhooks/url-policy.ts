import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { invalid } from '../../lib/errors';

/**
 * Where webhooks may be sent (docs/webhooks.md "Endpoint URLs"). One rule set, applied twice:
 * when a URL is saved (CLI, back office: `checkWebhookUrl`, 400 naming `webhook_url`) and on
 * every attempt against the address actually connected to (`refusedUrl` before connecting,
 * `refusedAddress` from the dispatcher's DNS lookup), so a name that resolves somewhere else
 * later (DNS rebinding) is still refused.
 *
 * - Always refused: credentials in the URL; link-local and cloud-metadata addresses;
 *   unspecified, multicast and broadcast addresses; Paydesk's own listening address.
 * - Test integrations: plain http:// and loopback receivers are fine (CONTRACT §7: a
 *   developer's receiver on their own machine), as are private-network addresses.
 * - Live integrations: https only, and no loopback, private (RFC 1918, CGNAT) or ULA address.
 *
 * Addresses are compared with node's BlockList (IPv4-mapped IPv6 included) after WHATWG URL
 * parsing, which already turns `0x7f000001`, `127.1` and `2130706433` into `127.0.0.1`.
 */
export type UrlMode = 'test' | 'live';

/** An address Paydesk itself answers on: HOST:PORT, and PUBLIC_BASE_URL's host and port. */
export interface OwnAddress {
  host: string;
  port: number;
}

export interface UrlPolicy {
  mode: UrlMode;
  own: readonly OwnAddress[];
}

export const MAX_WEBHOOK_URL_LENGTH = 500;

function blockList(entries: Array<[string, number | null, 'ipv4' | 'ipv6']>): BlockList {
  const list = new BlockList();
  for (const [address, prefix, type] of entries) {
    if (prefix === null) list.addAddress(address, type);
    else list.addSubnet(address, prefix, type);
  }
  return list;
}

const METADATA = blockList([
  ['169.254.0.0', 16, 'ipv4'], // link-local: AWS, GCP, Azure, OpenStack metadata at 169.254.169.254
  ['fe80::', 10, 'ipv6'],
  ['100.100.100.200', null, 'ipv4'], // Alibaba Cloud metadata
  ['168.63.129.16', null, 'ipv4'], // Azure wire server
  ['fd00:ec2::254', null, 'ipv6'], // AWS metadata over IPv6
]);
const UNROUTABLE = blockList([
  ['0.0.0.0', 8, 'ipv4'], // "this network": connecting to it reaches this machine
  ['::', null, 'ipv6'],
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['255.255.255.255', null, 'ipv4'],
  ['ff00::', 8, 'ipv6'],
]);
const UNSPECIFIED = blockList([
  ['0.0.0.0', 8, 'ipv4'],
  ['::', null, 'ipv6'],
]);
const LOOPBACK = blockList([
  ['127.0.0.0', 8, 'ipv4'],
  ['::1', null, 'ipv6'],
]);
const PRIVATE = blockList([
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['fc00::', 7, 'ipv6'], // unique local addresses
  ['fec0::', 10, 'ipv6'], // deprecated site-local
]);
/** Names that are the metadata service whatever DNS says. */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata']);

const family = (ip: string): 'ipv4' | 'ipv6' => (isIP(ip) === 6 ? 'ipv6' : 'ipv4');
const bare = (host: string): string => host.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
const isLoopbackName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');
const isLoopbackIp = (ip: string): boolean => LOOPBACK.check(ip, family(ip));
const isUnspecified = (ip: string): boolean => UNSPECIFIED.check(ip, family(ip));

/** This machine's interface addresses, read when asked (interfaces come and go). */
function isThisMachine(ip: string): boolean {
  if (isLoopbackIp(ip) || isUnspecified(ip)) return true;
  const wanted = ip.toLowerCase();
  return Object.values(networkInterfaces()).some((list) => list?.some((a) => a.address.toLowerCase() === wanted));
}

/** True when `host` (a name or an address) and `port` reach one of Paydesk's own addresses. */
function isOwn(host: string, port: number, own: readonly OwnAddress[]): boolean {
  const target = bare(host);
  const targetIp = isIP(target) ? target : isLoopbackName(target) ? '127.0.0.1' : null;
  return own.some((o) => {
    if (o.port !== port) return false;
    const mine = bare(o.host);
    if (mine === target) return true;
    const mineIsLocal = isIP(mine) ? isThisMachine(mine) : isLoopbackName(mine);
    // Listening on 127.0.0.1 or 0.0.0.0: every address of this machine on that port is us.
    return mineIsLocal && targetIp !== null && isThisMachine(targetIp);
  });
}

type AddressClass = 'metadata' | 'unroutable' | 'loopback' | 'private' | 'public';

/**
 * Which fixed list an address is in, remembered per address string (the lists never change; a
 * BlockList check builds a SocketAddress each time: issue 16, every attempt checks its address).
 */
const classes = new Map<string, AddressClass>();
const CLASSES_MAX = 1_000;

function classify(ip: string): AddressClass {
  let c = classes.get(ip);
  if (c === undefined) {
    const f = family(ip);
    c = METADATA.check(ip, f) ? 'metadata' : UNROUTABLE.check(ip, f) ? 'unroutable' : LOOPBACK.check(ip, f) ? 'loopback' : PRIVATE.check(ip, f) ? 'private' : 'public';
    if (classes.size >= CLASSES_MAX) classes.clear();
    classes.set(ip, c);
  }
  return c;
}

/** Why webhooks may not go to this IP address and port, or null when they may. */
export function refusedAddress(ip: string, port: number, policy: UrlPolicy): string | null {
  const c = classify(ip);
  if (c === 'metadata') return `${ip} is a link-local or cloud metadata address`;
  if (c === 'unroutable') return `${ip} is not a unicast address a receiver can listen on`;
  if (isOwn(ip, port, policy.own)) return `${ip}:${port} is Paydesk's own address`;
  if (policy.mode === 'live') {
    if (c === 'loopback') return `${ip} is a loopback address, allowed for test integrations only`;
    if (c === 'private') return `${ip} is a private-network address, allowed for test integrations only`;
  }
  return null;
}

const defaultPort = (u: URL): number => (u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80);

/** Why a URL may not receive webhooks (checked before connecting; names are checked again once resolved), or null. */
export function refusedUrl(url: URL, policy: UrlPolicy): string | null {
  if (url.protocol !== 'https:' && !(policy.mode === 'test' && url.protocol === 'http:')) {
    return policy.mode === 'test' ? 'must be an http or https URL' : 'must be an https URL (plain http is for test integrations only)';
  }
  if (url.username || url.password) return 'must not contain a user name or password';
  const host = bare(url.hostname);
  const port = defaultPort(url);
  if (isIP(host)) {
    const why = refusedAddress(host, port, policy);
    return why ? `must not point to ${why}` : null;
  }
  if (METADATA_NAMES.has(host)) return `must not point to ${host}, a cloud metadata service`;
  if (isOwn(host, port, policy.own)) return `must not point to Paydesk's own address (${host}:${port})`;
  if (isLoopbackName(host) && policy.mode === 'live') return `must not point to ${host}, a loopback name allowed for test integrations only`;
  return null;
}

/** Checks a webhook URL when it is saved; returns it normalised or throws 400 naming `webhook_url`. */
export function checkWebhookUrl(url: string, mode: UrlMode, own: readonly OwnAddress[] = []): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid('webhook_url', 'must be an absolute URL');
  }
  if (url.length > MAX_WEBHOOK_URL_LENGTH) throw invalid('webhook_url', `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  const why = refusedUrl(parsed, { mode, own });
  if (why) throw invalid('webhook_url', why);
  return parsed.toString();
}

/**
 * Paydesk's own addresses: HOST with the port bound (PORT unless told otherwise), the host and
 * port of PUBLIC_BASE_URL, and of any other base URL it answers on.
 */
export function ownAddresses(config: { host: string; port: number; publicBaseUrl: string | null }, opts: { boundPort?: number | undefined; urls?: string[] } = {}): OwnAddress[] {
  const out: OwnAddress[] = [{ host: config.host, port: opts.boundPort ?? config.port }];
  for (const base of [config.publicBaseUrl, ...(opts.urls ?? [])]) {
    if (!base) continue;
    try {
      const u = new URL(base);
      out.push({ host: u.hostname, port: defaultPort(u) });
    } catch {
      // not a URL: nothing of ours to protect there
    }
  }
  return out;
}
