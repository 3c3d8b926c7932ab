import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';
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
 * - Test integrations: plain http:// and loopback receivers are fine (a
 *   developer's receiver on their own machine), as are private-network addresses.
 * - Live integrations: https only, and global unicast addresses only: no loopback, private
 *   (RFC 1918, CGNAT, ULA), reserved, benchmarking (198.18.0.0/15), IETF (192.0.0.0/24),
 *   documentation or other special-purpose range.
 *
 * Addresses are classified with ipaddr.js's `range()` after WHATWG URL parsing (which already
 * turns `0x7f000001`, `127.1` and `2130706433` into `127.0.0.1`); an IPv6 address that carries
 * an IPv4 one (mapped, compatible, NAT64, 6to4, Teredo) is judged as that IPv4 address.
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

const MAX_WEBHOOK_URL_LENGTH = 500;

function blockList(entries: Array<[string, number | null, 'ipv4' | 'ipv6']>): BlockList {
  const list = new BlockList();
  for (const [address, prefix, type] of entries) {
    if (prefix === null) list.addAddress(address, type);
    else list.addSubnet(address, prefix, type);
  }
  return list;
}

const UNSPECIFIED = blockList([
  ['0.0.0.0', 8, 'ipv4'],
  ['::', null, 'ipv6'],
]);
const LOOPBACK = blockList([
  ['127.0.0.0', 8, 'ipv4'],
  ['::1', null, 'ipv6'],
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

type AddressClass = 'metadata' | 'unroutable' | 'loopback' | 'private' | 'special' | 'public';

interface Classified {
  class: AddressClass;
  /** The IPv4 address carried inside an IPv6 one (mapped, compatible, NAT64, 6to4, Teredo), when there is one. */
  embedded: string | null;
  /** ipaddr.js's name of the range the address (or the embedded one) is in: `unicast` when none is special. */
  range: string;
}

const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
const METADATA_ADDRESSES = new Set(['100.100.100.200', '168.63.129.16', 'fd00:ec2::254']);

const v4 = (a: number, b: number, c: number, d: number) => new ipaddr.IPv4([a & 255, b & 255, c & 255, d & 255]);

/**
 * The IPv4 addresses an IPv6 one leads to: IPv4-mapped (::ffff:0:0/96) and its translated form
 * (::ffff:0:0:0/96), IPv4-compatible (::/96), NAT64 (64:ff9b::/96, the last 32 bits), 6to4
 * (2002::/16, bits 16-47) and Teredo (2001::/32: the server, bits 32-63, and the client, the last
 * 32 bits inverted). A connection to one of them can reach that IPv4 address, so it is judged as
 * that address.
 */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = ip.parts;
  const range = ip.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || ip.match(NAT64) || (ip.match(IPV4_COMPATIBLE) && range !== 'loopback' && range !== 'unspecified')) {
    return [v4(p[6]! >> 8, p[6]!, p[7]! >> 8, p[7]!)];
  }
  if (range === '6to4') return [v4(p[1]! >> 8, p[1]!, p[2]! >> 8, p[2]!)];
  if (range === 'teredo') return [v4(p[2]! >> 8, p[2]!, p[3]! >> 8, p[3]!), v4(~p[6]! >> 8, ~p[6]!, ~p[7]! >> 8, ~p[7]!)];
  return [];
}

/** The class of one address by ipaddr.js's ranges; IPv4 and IPv6 alike. */
function classOf(addr: ipaddr.IPv4 | ipaddr.IPv6): { class: AddressClass; range: string } {
  const range: string = addr.range();
  if (METADATA_ADDRESSES.has(addr.toNormalizedString()) || METADATA_ADDRESSES.has(addr.toString())) return { class: 'metadata', range };
  switch (range) {
    case 'linkLocal':
      return { class: 'metadata', range };
    case 'unspecified':
    case 'broadcast':
    case 'multicast':
      return { class: 'unroutable', range };
    case 'loopback':
      return { class: 'loopback', range };
    case 'private':
    case 'carrierGradeNat':
    case 'uniqueLocal':
    case 'deprecatedSiteLocal':
      return { class: 'private', range };
    case 'unicast':
      // IPv6: only 2000::/3 is global unicast; the rest of the space is not handed out.
      return addr.kind() === 'ipv6' && !addr.match(GLOBAL_UNICAST_V6) ? { class: 'special', range: 'unassigned' } : { class: 'public', range };
    default:
      // reserved, documentation, benchmarking (198.18.0.0/15), 192.0.0.0/24, 240.0.0.0/4,
      // AS112, AMT, ORCHID, discard, segment routing, local-use NAT64 (64:ff9b:1::/48)…
      return { class: 'special', range };
  }
}

/** The more serious of two classes (an IPv6 address carrying a forbidden IPv4 one is forbidden). */
const SEVERITY: AddressClass[] = ['metadata', 'unroutable', 'loopback', 'private', 'special', 'public'];

/**
 * Which class an address is in, remembered per address string (the ranges never change, and
 * every attempt checks the address it connects to).
 */
const classes = new Map<string, Classified>();
const CLASSES_MAX = 1_000;

/** Ranges that only carry an IPv4 address: the address inside decides. */
const TRANSLATION_RANGES = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052', '6to4', 'teredo']);
const worse = (a: AddressClass, b: AddressClass): AddressClass => (SEVERITY.indexOf(a) <= SEVERITY.indexOf(b) ? a : b);

function classify(ip: string): Classified {
  let c = classes.get(ip);
  if (c === undefined) {
    const addr = ipaddr.parse(ip);
    const own = classOf(addr);
    const inner = addr.kind() === 'ipv6' ? embeddedIPv4(addr as ipaddr.IPv6) : [];
    if (inner.length === 0) {
      c = { ...own, embedded: null };
    } else {
      // The IPv6 form counts too unless it is a pure translation prefix (NAT64's 64:ff9b::/96
      // to a public address is fine; ::/96, IPv4-compatible, is deprecated and never global).
      let cls: AddressClass = TRANSLATION_RANGES.has(own.range) && own.class === 'special' ? 'public' : own.class;
      let range = own.range;
      for (const a of inner) {
        const theirs = classOf(a);
        if (worse(theirs.class, cls) === theirs.class && theirs.class !== cls) range = theirs.range;
        cls = worse(theirs.class, cls);
      }
      c = { class: cls, range, embedded: inner.map((a) => a.toString()).join(', ') };
    }
    if (classes.size >= CLASSES_MAX) classes.clear();
    classes.set(ip, c);
  }
  return c;
}

/** Why webhooks may not go to this IP address and port, or null when they may. */
export function refusedAddress(ip: string, port: number, policy: UrlPolicy): string | null {
  const c = classify(ip);
  const what = c.embedded ? `${ip} (${c.embedded})` : ip;
  if (c.class === 'metadata') return `${what} is a link-local or cloud metadata address`;
  if (c.class === 'unroutable') return `${what} is not a unicast address a receiver can listen on`;
  if (isOwn(ip, port, policy.own) || (c.embedded !== null && c.embedded.split(', ').some((a) => isOwn(a, port, policy.own)))) return `${ip}:${port} is Paydesk's own address`;
  if (policy.mode === 'live') {
    if (c.class === 'loopback') return `${what} is a loopback address, allowed for test integrations only`;
    if (c.class === 'private') return `${what} is a private-network address, allowed for test integrations only`;
    if (c.class === 'special') return `${what} is a reserved, documentation or special-purpose address (${c.range}), not a global unicast one: allowed for test integrations only`;
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
