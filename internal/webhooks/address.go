package webhooks

import "net/netip"

// Where a webhook may go is decided on the address: the standard library's
// classification first (loopback, private, link-local, multicast,
// unspecified), then the IANA special-purpose address registries, whose
// ranges the standard library does not name, then the IPv4 address an
// IPv6 address carries inside it, which a translator or tunnel on the path
// would deliver to (64:ff9b::7f00:1 is 127.0.0.1 through NAT64).

// specialV4 are the IPv4 special-purpose ranges (RFC 6890 and the IANA
// registry) that are not globally reachable, plus multicast and the
// reserved class E space.
var specialV4 = prefixes(
	"0.0.0.0/8",       // "this network"
	"10.0.0.0/8",      // private
	"100.64.0.0/10",   // shared address space (carrier-grade NAT)
	"127.0.0.0/8",     // loopback
	"169.254.0.0/16",  // link-local, the cloud metadata address among them
	"172.16.0.0/12",   // private
	"192.0.0.0/24",    // IETF protocol assignments (DS-Lite, NAT64 discovery, ...)
	"192.0.2.0/24",    // documentation (TEST-NET-1)
	"192.88.99.0/24",  // 6to4 relay anycast (deprecated)
	"192.168.0.0/16",  // private
	"198.18.0.0/15",   // benchmarking
	"198.51.100.0/24", // documentation (TEST-NET-2)
	"203.0.113.0/24",  // documentation (TEST-NET-3)
	"224.0.0.0/4",     // multicast
	"240.0.0.0/4",     // reserved, and the limited broadcast address
)

// specialV6 are the IPv6 special-purpose ranges that are not globally
// reachable. Ranges that carry an IPv4 address (v4-mapped, NAT64, 6to4)
// are not here: embeddedV4 unwraps them and the IPv4 address is judged.
var specialV6 = prefixes(
	"::/96",          // IPv4-compatible (deprecated), :: and ::1 among them
	"64:ff9b:1::/48", // local-use IPv4/IPv6 translation
	"100::/64",       // discard-only
	"100:0:0:1::/64", // dummy prefix
	"2001::/23",      // IETF protocol assignments: Teredo (its client address is obfuscated), benchmarking, ORCHID
	"2001:db8::/32",  // documentation
	"3fff::/20",      // documentation
	"5f00::/16",      // segment routing (SRv6) SIDs
	"fc00::/7",       // unique local
	"fe80::/10",      // link-local
	"fec0::/10",      // site-local (deprecated)
	"ff00::/8",       // multicast
)

// Prefixes whose addresses carry an IPv4 address in a fixed place.
var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")    // RFC 6052 well-known prefix: the last 32 bits
	siit      = netip.MustParsePrefix("::ffff:0:0:0/96") // IPv4-translated (RFC 2765): the last 32 bits
	sixToFour = netip.MustParsePrefix("2002::/16")       // 6to4 (RFC 3056): bits 16 to 47
	ipv4Compt = netip.MustParsePrefix("::/96")           // IPv4-compatible (RFC 4291, deprecated): the last 32 bits
)

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// Private reports whether ip is an address webhooks may not reach unless
// private addresses are allowed: anything that is not a public unicast
// address, judged on the IPv4 address inside it when it carries one.
func Private(ip netip.Addr) bool {
	ip = ip.Unmap().WithZone("")
	if !ip.IsValid() || ip.IsUnspecified() || ip.IsLoopback() || ip.IsPrivate() || ip.IsMulticast() ||
		ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || !ip.IsGlobalUnicast() {
		return true
	}
	table := specialV6
	if ip.Is4() {
		table = specialV4
	}
	for _, p := range table {
		if p.Contains(ip) {
			return true
		}
	}
	if v4, ok := embeddedV4(ip); ok {
		return Private(v4)
	}
	return false
}

// embeddedV4 is the IPv4 address an IPv6 address carries: NAT64 and
// IPv4-translated addresses in their last 32 bits, 6to4 in bits 16 to 47,
// and an ISATAP interface identifier (RFC 5214: ...:0:5efe:a.b.c.d, or
// 200:5efe for a universal one) in its last 32 bits on any prefix.
func embeddedV4(ip netip.Addr) (netip.Addr, bool) {
	if !ip.Is6() {
		return netip.Addr{}, false
	}
	b := ip.As16()
	last := netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	switch {
	case nat64.Contains(ip), siit.Contains(ip), ipv4Compt.Contains(ip):
		return last, true
	case sixToFour.Contains(ip):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	case (b[8]|0x02) == 0x02 && b[9] == 0 && b[10] == 0x5e && b[11] == 0xfe:
		return last, true
	}
	return netip.Addr{}, false
}
