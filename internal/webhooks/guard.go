package webhooks

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"marketplace/internal/market"
)

// Resolver resolves host names (net.DefaultResolver; tests inject their
// own).
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// Guard is the policy for where webhooks may go (CONTRACT.md section 9):
// https only in live mode, and only public unicast addresses (Private)
// unless AllowPrivate. URLs are checked when they are set, and the dialer checks
// the address it actually connects to, so a name that later resolves
// elsewhere (DNS rebinding) cannot reach them either.
type Guard struct {
	Live         bool
	AllowPrivate bool
	Resolver     Resolver
}

func urlError(msg string) error {
	return market.Invalid(market.FieldError{Field: "url", Message: msg})
}

// CheckURL validates a webhook URL as it is set: a VALIDATION_ERROR on
// url when it is refused. A host name is resolved, and refused when any of
// its addresses is private.
func (g *Guard) CheckURL(ctx context.Context, raw string) error {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return urlError("is required")
	}
	if len(raw) > 2048 {
		return urlError("must be at most 2048 characters")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return urlError("is not a valid URL")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if g.Live {
			return urlError("must use https")
		}
	default:
		if g.Live {
			return urlError("must be an https URL")
		}
		return urlError("must be an http or https URL")
	}
	if u.User != nil {
		return urlError("must not carry a user name or password")
	}
	host := u.Hostname()
	if host == "" {
		return urlError("must name a host")
	}
	if u.Fragment != "" {
		return urlError("must not have a fragment")
	}
	if g.AllowPrivate {
		return nil
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if Private(ip) {
			return urlError("must not point to a loopback, private, link-local or reserved address")
		}
		return nil
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return urlError("must not point to a loopback, private, link-local or reserved address")
	}
	r := g.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := r.LookupIPAddr(rctx, host)
	if err != nil || len(addrs) == 0 {
		return urlError("host does not resolve")
	}
	for _, a := range addrs {
		ip, ok := netip.AddrFromSlice(a.IP)
		if !ok || Private(ip) {
			return urlError("host resolves to a loopback, private, link-local or reserved address")
		}
	}
	return nil
}

// ErrAddressRefused is the dial error for a refused address.
type ErrAddressRefused struct{ Addr string }

func (e *ErrAddressRefused) Error() string {
	return fmt.Sprintf("refused to connect to %s: not a public address", e.Addr)
}

// Control is a net.Dialer Control function: it refuses a connection to a
// private address (unless AllowPrivate), after resolution, on the address
// actually dialled.
func (g *Guard) Control(network, address string, _ syscall.RawConn) error {
	if g.AllowPrivate {
		return nil
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return &ErrAddressRefused{Addr: address}
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || Private(ip) {
		return &ErrAddressRefused{Addr: host}
	}
	return nil
}
