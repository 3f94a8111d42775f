package webhooks

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"marketplace/internal/market"
)

// fakeResolver answers from a table.
type fakeResolver map[string][]string

func (f fakeResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	var out []net.IPAddr
	for _, s := range f[host] {
		out = append(out, net.IPAddr{IP: net.ParseIP(s)})
	}
	if len(out) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return out, nil
}

var resolver = fakeResolver{
	"hooks.example.com":    {"93.184.216.34"},
	"rebind.example.com":   {"93.184.216.34", "10.1.2.3"},
	"internal.example.com": {"192.168.1.10"},
	"meta.example.com":     {"169.254.169.254"},
	"v6local.example.com":  {"fd00::1"},
	"loop.example.com":     {"127.0.0.1"},
}

func TestCheckURLLive(t *testing.T) {
	g := &Guard{Live: true, Resolver: resolver}
	refused := []string{
		"http://hooks.example.com/x",        // https only in live mode
		"ftp://hooks.example.com/x",         // scheme
		"https://user:pw@hooks.example.com", // userinfo
		"https:///path",                     // no host
		"https://127.0.0.1/x",               // loopback
		"https://127.1.2.3/x",
		"https://10.0.0.1/x",         // 10/8
		"https://172.16.0.1/x",       // 172.16/12
		"https://172.31.255.254/x",   //
		"https://192.168.0.1/x",      // 192.168/16
		"https://169.254.169.254/x",  // metadata
		"https://[::1]/x",            // ::1
		"https://[fc00::1]/x",        // fc00::/7
		"https://[fd12:3456::1]/x",   //
		"https://[fe80::1]/x",        // link-local v6
		"https://[::ffff:10.0.0.1]/", // v4-mapped
		"https://0.0.0.0/x",
		"https://localhost/x",
		"https://internal.example.com/x", // resolves to 192.168/16
		"https://meta.example.com/x",     // resolves to the metadata address
		"https://v6local.example.com/x",  // resolves to fc00::/7
		"https://loop.example.com/x",     // resolves to loopback
		"https://rebind.example.com/x",   // one of its addresses is private
		"https://nxdomain.example.com/x", // does not resolve
		"",
	}
	for _, u := range refused {
		err := g.CheckURL(context.Background(), u)
		if e := market.ErrorOf(err); err == nil || e.Code != market.CodeValidation || len(e.Fields) != 1 || e.Fields[0].Field != "url" {
			t.Errorf("%q: want VALIDATION_ERROR on url, got %v", u, err)
		}
	}
	for _, u := range []string{"https://hooks.example.com/x", "https://93.184.216.34/hook", "https://172.32.0.1/x"} {
		if err := g.CheckURL(context.Background(), u); err != nil {
			t.Errorf("%q: want accepted, got %v", u, err)
		}
	}
}

func TestCheckURLSandbox(t *testing.T) {
	g := &Guard{AllowPrivate: true, Resolver: resolver}
	for _, u := range []string{"http://127.0.0.1:9/x", "https://internal.example.com/x", "http://localhost:8080/"} {
		if err := g.CheckURL(context.Background(), u); err != nil {
			t.Errorf("%q: want accepted in the sandbox, got %v", u, err)
		}
	}
	if err := g.CheckURL(context.Background(), "ftp://x/"); err == nil {
		t.Error("ftp accepted")
	}
}

// TestPrivate judges every form an address can take: the standard
// library's classes, each special-purpose range, and IPv4 addresses inside
// IPv6 ones (mapped, compatible, translated, NAT64, 6to4, ISATAP), private
// inside refused, public inside allowed.
func TestPrivate(t *testing.T) {
	for _, c := range []struct {
		addr string
		want bool
	}{
		// IPv4: the standard library's classes.
		{"127.0.0.1", true}, {"127.255.255.254", true}, {"10.255.0.1", true}, {"172.16.5.4", true},
		{"172.31.255.255", true}, {"172.32.0.1", false}, {"192.168.3.3", true}, {"169.254.169.254", true},
		{"0.0.0.0", true}, {"224.0.0.1", true}, {"239.255.255.250", true}, {"255.255.255.255", true},
		// IPv4: the special-purpose registry.
		{"0.1.2.3", true}, {"100.64.0.1", true}, {"100.127.255.254", true}, {"100.128.0.1", false},
		{"192.0.0.1", true}, {"192.0.0.170", true}, {"192.0.1.1", false}, {"192.0.2.10", true},
		{"192.88.99.1", true}, {"198.18.0.1", true}, {"198.19.255.254", true}, {"198.17.255.255", false},
		{"198.20.0.1", false}, {"198.51.100.7", true}, {"203.0.113.9", true}, {"240.0.0.1", true},
		{"8.8.8.8", false}, {"93.184.216.34", false},
		// IPv6: the standard library's classes and the registry.
		{"::1", true}, {"::", true}, {"fc00::1", true}, {"fd12:3456::1", true}, {"fe80::1", true},
		{"fe80::1%eth0", true}, {"fec0::1", true}, {"ff02::1", true}, {"ff05::2", true}, {"100::1", true},
		{"100:0:0:1::1", true}, {"2001::1", true}, {"2001:0:4136:e378:8000:63bf:3fff:fdd2", true},
		{"2001:2::1", true}, {"2001:db8::1", true}, {"3fff::1", true}, {"5f00::1", true},
		{"64:ff9b:1::1", true}, {"2606:4700::1111", false}, {"2a00:1450:4001:81b::200e", false},
		// IPv4 inside IPv6: mapped, compatible and translated.
		{"::ffff:127.0.0.1", true}, {"::ffff:10.0.0.1", true}, {"::ffff:8.8.8.8", false},
		{"::127.0.0.1", true}, {"::7f00:1", true}, {"::8.8.8.8", true}, {"::ffff:0:7f00:1", true},
		{"::ffff:0:808:808", false},
		// NAT64's well-known prefix carries the address it reaches.
		{"64:ff9b::7f00:1", true}, {"64:ff9b::a9fe:a9fe", true}, {"64:ff9b::c612:1", true},
		{"64:ff9b::c000:1", true}, {"64:ff9b::808:808", false},
		// 6to4 carries its gateway in bits 16 to 47.
		{"2002:7f00:1::", true}, {"2002:7f00:1::1", true}, {"2002:a00:1::1", true}, {"2002:c0a8:101::1", true},
		{"2002:a9fe:a9fe::1", true}, {"2002:c612:1::1", true}, {"2002:808:808::1", false},
		// ISATAP interface identifiers carry an IPv4 address on any prefix.
		{"2606:4700::5efe:7f00:1", true}, {"2606:4700::200:5efe:a00:1", true}, {"2606:4700::5efe:808:808", false},
	} {
		if got := Private(netip.MustParseAddr(c.addr)); got != c.want {
			t.Errorf("Private(%s) = %v, want %v", c.addr, got, c.want)
		}
	}
}

// TestEmbeddedForms refuses the URL forms that reach a loopback or special
// address through IPv6, both when a URL is set and when the dialer
// connects.
func TestEmbeddedForms(t *testing.T) {
	g := &Guard{Live: true, Resolver: resolver}
	for _, host := range []string{
		"[64:ff9b::7f00:1]", "[2002:7f00:1::]", "[::127.0.0.1]", "[::ffff:0:7f00:1]", "[::ffff:127.0.0.1]",
		"[2606:4700::5efe:7f00:1]", "198.18.0.1", "198.19.1.1", "192.0.0.8", "[64:ff9b::c612:1]",
	} {
		u := "https://" + host + "/hook"
		err := g.CheckURL(context.Background(), u)
		if e := market.ErrorOf(err); err == nil || e.Code != market.CodeValidation || e.Fields[0].Field != "url" {
			t.Errorf("%s: want VALIDATION_ERROR on url, got %v", u, err)
		}
		addr := strings.Trim(host, "[]")
		if err := g.Control("tcp", net.JoinHostPort(addr, "443"), nil); err == nil {
			t.Errorf("dial to %s: allowed", addr)
		}
	}
	for _, host := range []string{"[64:ff9b::808:808]", "[2002:808:808::1]", "[2606:4700::1111]"} {
		if err := g.CheckURL(context.Background(), "https://"+host+"/hook"); err != nil {
			t.Errorf("%s: want accepted, got %v", host, err)
		}
		if err := g.Control("tcp", net.JoinHostPort(strings.Trim(host, "[]"), "443"), nil); err != nil {
			t.Errorf("dial to %s: %v", host, err)
		}
	}
}

// TestDialerRefusesPrivate: a URL that passed (or a name that now
// resolves elsewhere: DNS rebinding) still cannot reach a private address,
// because the dialer checks the address it connects to.
func TestDialerRefusesPrivate(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	s := NewSender(&Guard{Live: false, AllowPrivate: false})
	res := s.Send(context.Background(), srv.URL, NewSecret(), "ev1", []byte(`{}`))
	if res.OK() || !strings.Contains(res.Err, "refused to connect") || hits.Load() != 0 {
		t.Fatalf("dial to %s: %+v, hits %d", srv.URL, res, hits.Load())
	}
	// A host name is checked after resolution too.
	u := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	if res := s.Send(context.Background(), u, NewSecret(), "ev1", []byte(`{}`)); res.OK() || hits.Load() != 0 {
		t.Fatalf("dial to %s: %+v", u, res)
	}
	// Allowed, the same server answers.
	ok := NewSender(&Guard{AllowPrivate: true}).Send(context.Background(), srv.URL, NewSecret(), "ev1", []byte(`{}`))
	if !ok.OK() || hits.Load() != 1 {
		t.Fatalf("allowed: %+v hits %d", ok, hits.Load())
	}
}

func TestNoRedirects(t *testing.T) {
	var target atomic.Int32
	dst := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { target.Add(1) }))
	defer dst.Close()
	src := httptest.NewServer(http.RedirectHandler(dst.URL, http.StatusTemporaryRedirect))
	defer src.Close()
	res := NewSender(&Guard{AllowPrivate: true}).Send(context.Background(), src.URL, NewSecret(), "ev1", []byte(`{}`))
	if res.OK() || res.StatusCode != http.StatusTemporaryRedirect || target.Load() != 0 {
		t.Fatalf("redirect: %+v, target hit %d times", res, target.Load())
	}
}

// TestSignature checks Sign against the Standard Webhooks construction
// written out again here.
func TestSignature(t *testing.T) {
	secret := NewSecret()
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatal(secret)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(key) != 32 {
		t.Fatalf("secret %q: %v", secret, err)
	}
	body := []byte(`{"id":"ev1"}`)
	sig, err := Sign(secret, "ev1", 1700000000, body)
	if err != nil {
		t.Fatal(err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("ev1." + strconv.Itoa(1700000000) + "." + string(body)))
	if want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)); sig != want {
		t.Fatalf("signature %s, want %s", sig, want)
	}
	// A known vector of the Standard Webhooks reference libraries.
	got, _ := Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330,
		[]byte(`{"test": 2432232314}`))
	if got != "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" {
		t.Fatalf("reference vector: %s", got)
	}
}

func TestRetryDelay(t *testing.T) {
	s := &Service{}
	s.SetRetryDelays(nil)
	if s.MaxAttempts() != 8 {
		t.Fatal(s.MaxAttempts())
	}
	for i, d := range DefaultRetryDelays {
		got := s.RetryDelay("d1", i+1)
		if got < d || got > d+d/10 || got != s.RetryDelay("d1", i+1) {
			t.Errorf("attempt %d: %v (base %v)", i+1, got, d)
		}
	}
}
