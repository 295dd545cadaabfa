package fetch

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"sort"
	"strings"
	"syscall"
)

// blockedPrefixes are the address ranges a crawler must not reach unless
// AllowPrivateNetworks is set: loopback, RFC 1918 and unique-local, link-local,
// CGNAT, unspecified/"this network", multicast, reserved and benchmarking
// ranges, the deprecated IPv6 site-local range (fec0::/10, still routed as
// private by old networks), the deprecated IPv4-compatible range (::/96,
// which a host with a sit tunnel sends to the IPv4 address in its last 32
// bits; no public host has such an address), Teredo (2001::/32, RFC 4380:
// a tunnel whose relay sends the packet to the client's IPv4 address, kept
// obfuscated in the last 32 bits — a public web site has no Teredo
// address), the discard-only range (100::/64), the documentation ranges
// (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32,
// 3fff::/20) and IPv6 benchmarking (2001:2::/48, the twin of
// 198.18.0.0/15). Reaching
// them from a crawler turns it into a probe of our own network (SSRF).
// Ranges that embed an IPv4 address are judged by it (embedsIPv4).
var blockedPrefixes = mustPrefixes(
	"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
	"172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16",
	"198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
	"224.0.0.0/4", "240.0.0.0/4",
	"::/96", "100::/64", "2001::/32", "2001:2::/48", "2001:db8::/32", "3fff::/20",
	"fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
)

// embedsIPv4 are IPv6 ranges whose addresses carry an IPv4 address that a
// gateway on the path turns them into: the IPv4-translated range
// (::ffff:0:0:0/96, RFC 2765's SIIT, the IPv4 address in the last 32 bits;
// not the IPv4-mapped ::ffff:0:0/96, which Unmap already reads), the
// well-known NAT64 prefix
// (64:ff9b::/96, RFC 6052, the IPv4 address in the last 32 bits), the
// local-use NAT64 range (64:ff9b:1::/48, RFC 8215: a site's own translator,
// read as /96 prefixes within it, the IPv4 address in the last 32 bits —
// refusing the whole range broke every IPv4-only site for a worker on an
// IPv6-only network behind such a translator) and 6to4 (2002::/16, RFC
// 3056, the IPv4 address in bits 16-47). Such an address is as private as
// the IPv4 address it embeds: 2002:7f00:1:: is 127.0.0.1 to a 6to4 relay.
var embedsIPv4 = []struct {
	prefix netip.Prefix
	at     int // byte offset of the IPv4 address
}{
	{netip.MustParsePrefix("::ffff:0:0:0/96"), 12},
	{netip.MustParsePrefix("64:ff9b::/96"), 12},
	{netip.MustParsePrefix("64:ff9b:1::/48"), 12},
	{netip.MustParsePrefix("2002::/16"), 2},
}

func mustPrefixes(ss ...string) []netip.Prefix {
	ps := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		ps[i] = netip.MustParsePrefix(s)
	}
	return ps
}

// isBlockedIP reports whether ip is in a non-public range, or embeds an
// IPv4 address that is (embedsIPv4).
func isBlockedIP(ip netip.Addr) bool {
	ip = ip.Unmap().WithZone("")
	for _, e := range embedsIPv4 {
		if e.prefix.Contains(ip) {
			b := ip.As16()
			ip = netip.AddrFrom4([4]byte(b[e.at : e.at+4]))
			break
		}
	}
	for _, p := range blockedPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// checkLiteralHost refuses a URL whose host is a non-public IP literal before
// any connection is tried. Names are checked at dial time, on the address
// actually dialled, so that DNS rebinding cannot slip past.
func (f *Fetcher) checkLiteralHost(host string) error {
	if f.cfg.AllowPrivateNetworks {
		return nil
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	if err != nil {
		return nil // a name
	}
	if isBlockedIP(ip) {
		return &errSSRF{addr: ip.String()}
	}
	return nil
}

// dialControl runs after name resolution and before connect, for every
// address tried; refusing there covers DNS answers, redirects and Resolve
// overrides alike.
func dialControl(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &errSSRF{addr: address} // fail closed on anything unexpected
	}
	if isBlockedIP(ap.Addr()) {
		return &errSSRF{addr: address}
	}
	return nil
}

// resolver is the Resolve override: virtual host names mapped to one address.
type resolver struct {
	exact    map[string]string // "host:port" and "host" keys
	suffixes []suffixRule      // "*.suffix" keys, longest suffix first
}

type suffixRule struct {
	suffix string // ".test" for "*.test"
	target string
}

// newResolver validates and indexes Config.Resolve.
func newResolver(m map[string]string) (*resolver, error) {
	r := &resolver{exact: map[string]string{}}
	for key, target := range m {
		k := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(key)), ".")
		host, port, err := net.SplitHostPort(target)
		if err != nil {
			return nil, fmt.Errorf("entry Resolve[%q]: target %q is not ip:port: %w", key, target, err)
		}
		if _, err := netip.ParseAddr(host); err != nil {
			return nil, fmt.Errorf("entry Resolve[%q]: target %q does not start with an IP address: %w", key, target, err)
		}
		if _, err := netip.ParseAddrPort(net.JoinHostPort(host, port)); err != nil {
			return nil, fmt.Errorf("entry Resolve[%q]: target %q has a bad port: %w", key, target, err)
		}
		switch {
		case strings.HasPrefix(k, "*."):
			if len(k) <= 2 {
				return nil, fmt.Errorf("entry Resolve[%q]: wildcard without a suffix", key)
			}
			r.suffixes = append(r.suffixes, suffixRule{suffix: k[1:], target: target})
		case k == "" || strings.ContainsAny(k, "*/ "):
			return nil, fmt.Errorf("entry Resolve[%q]: key must be host, host:port or *.suffix", key)
		default:
			r.exact[k] = target
		}
	}
	sort.Slice(r.suffixes, func(i, j int) bool { return len(r.suffixes[i].suffix) > len(r.suffixes[j].suffix) })
	return r, nil
}

// lookup maps a dial address "host:port" to its override target, if any.
func (r *resolver) lookup(addr string) (string, bool) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", false
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if t, ok := r.exact[strings.ToLower(addr)]; ok {
		return t, true
	}
	if t, ok := r.exact[host]; ok {
		return t, true
	}
	for _, s := range r.suffixes {
		if strings.HasSuffix(host, s.suffix) {
			return s.target, true
		}
	}
	return "", false
}

// dialContext applies the Resolve override and dials; the dialer's Control
// hook enforces the SSRF guard on the final address.
func (f *Fetcher) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if t, ok := f.resolver.lookup(addr); ok {
		addr = t
	}
	return f.dialer.DialContext(ctx, network, addr)
}
