package shipping

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
	"time"

	"marketplace/internal/market"
)

const testSecret = "test-secret-0123456789abcdef0123456789"

var (
	tokenNow     = time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	tokenListing = "0190f1c4-7e7a-7b3e-8b1a-2f1d3c4b5a69"
	tokenRate    = CarrierRate{Carrier: "usps", Service: "priority_express", Amount: 4590, EstimatedDays: 2}
)

func signTest(s *RateSigner) string {
	return s.Sign(tokenRate, tokenListing, "94103", tokenNow.Add(RateTTL))
}

// wantRejected fails unless err is a VALIDATION_ERROR on field.
func wantRejected(t *testing.T, err error, field string) *market.Error {
	t.Helper()
	e := market.ErrorOf(err)
	if err == nil || e.Code != market.CodeValidation || len(e.Fields) != 1 || e.Fields[0].Field != field || e.Fields[0].Message == "" {
		t.Fatalf("error %v (fields %+v), want VALIDATION_ERROR on %s", err, e.Fields, field)
	}
	return e
}

func TestRateTokenRoundTrip(t *testing.T) {
	s := NewRateSigner([]byte(testSecret))
	tok := signTest(s)
	if len(tok) > 100 || url.QueryEscape(tok) != tok || url.PathEscape(tok) != tok {
		t.Fatalf("token %q (%d chars) is not short and URL-safe", tok, len(tok))
	}
	for _, zip := range []string{"94103", "94103-0042", " 94103 "} {
		r, err := s.Verify("shipping_rate_id", tok, tokenListing, zip, tokenNow)
		if err != nil {
			t.Fatalf("zip %q: %v", zip, err)
		}
		want := Rate{RateID: tok, Carrier: "usps", Service: "priority_express", Amount: 4590, EstimatedDays: 2,
			ExpiresAt: tokenNow.Add(RateTTL)}
		if *r != want {
			t.Fatalf("verified %+v, want %+v", *r, want)
		}
	}
	// Valid to the last second.
	if _, err := s.Verify("f", tok, tokenListing, "94103", tokenNow.Add(RateTTL-time.Nanosecond)); err != nil {
		t.Fatal(err)
	}
	// Signing is deterministic: the token is a function of what it carries.
	if again := signTest(NewRateSigner([]byte(testSecret))); again != tok {
		t.Fatalf("tokens differ: %s %s", tok, again)
	}
	// A rate of 0 (free shipping) round-trips too.
	free := s.Sign(CarrierRate{Carrier: CarrierSeller, Service: ServiceFree}, tokenListing, "10001", tokenNow.Add(RateTTL))
	if r, err := s.Verify("f", free, tokenListing, "10001", tokenNow); err != nil || r.Amount != 0 || r.Service != "free" {
		t.Fatalf("free rate: %+v %v", r, err)
	}
}

func TestRateTokenRejected(t *testing.T) {
	s := NewRateSigner([]byte(testSecret))
	tok := signTest(s)
	bad := wantRejected(t, func() error {
		_, err := s.Verify("carrier_rate_id", tok, tokenListing, "10001", tokenNow)
		return err
	}(), "carrier_rate_id")

	cases := map[string]struct{ token, listing, zip string }{
		"other listing": {tok, market.NewID(), "94103"},
		"other zip":     {tok, tokenListing, "94104"},
		"bad zip":       {tok, tokenListing, "941"},
		"empty":         {"", tokenListing, "94103"},
		"no dot":        {strings.Replace(tok, ".", "", 1), tokenListing, "94103"},
		"two dots":      {tok + ".x", tokenListing, "94103"},
		"padded":        {tok + "=", tokenListing, "94103"},
		"mac cut":       {tok[:len(tok)-2], tokenListing, "94103"},
		"mac only":      {tok[strings.Index(tok, "."):], tokenListing, "94103"},
		"too long":      {tok + strings.Repeat("A", 300), tokenListing, "94103"},
		"other secret":  {signTest(NewRateSigner([]byte("another-secret-0123456789abcdef"))), tokenListing, "94103"},
	}
	if std := strings.NewReplacer("-", "+", "_", "/").Replace(tok); std != tok {
		cases["standard base64"] = struct{ token, listing, zip string }{std, tokenListing, "94103"}
	}
	for name, c := range cases {
		_, err := s.Verify("shipping_rate_id", c.token, c.listing, c.zip, tokenNow)
		e := wantRejected(t, err, "shipping_rate_id")
		if e.Fields[0].Message != bad.Fields[0].Message {
			t.Errorf("%s: message %q, want the one message for every bad token", name, e.Fields[0].Message)
		}
	}
}

// Changing any one character of a token makes it fail: the payload is under
// the MAC and strict base64 gives every character exactly one decoding.
func TestRateTokenTamperEveryCharacter(t *testing.T) {
	s := NewRateSigner([]byte(testSecret))
	tok := signTest(s)
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
	for i := range len(tok) {
		for _, c := range []byte{alphabet[(strings.IndexByte(alphabet, tok[i])+1)%len(alphabet)], alphabet[(strings.IndexByte(alphabet, tok[i])+37)%len(alphabet)]} {
			bad := tok[:i] + string(c) + tok[i+1:]
			if _, err := s.Verify("f", bad, tokenListing, "94103", tokenNow); err == nil {
				t.Fatalf("token with character %d changed to %q verified: %s", i, c, bad)
			}
		}
	}
}

// Each field re-encoded in the payload, with the original MAC: refused,
// so the amount, service or expiry cannot be edited.
func TestRateTokenTamperFields(t *testing.T) {
	s := NewRateSigner([]byte(testSecret))
	tok := signTest(s)
	_, mac, _ := strings.Cut(tok, ".")
	exp := tokenNow.Add(RateTTL)
	for name, r := range map[string]CarrierRate{
		"amount":  {Carrier: "usps", Service: "priority_express", Amount: 1, EstimatedDays: 2},
		"days":    {Carrier: "usps", Service: "priority_express", Amount: 4590, EstimatedDays: 1},
		"carrier": {Carrier: "ups", Service: "priority_express", Amount: 4590, EstimatedDays: 2},
		"service": {Carrier: "usps", Service: "ground_advantage", Amount: 4590, EstimatedDays: 2},
	} {
		t.Run(name, func(t *testing.T) {
			forged, _, _ := strings.Cut(s.Sign(r, tokenListing, "94103", exp), ".")
			_, err := s.Verify("f", forged+"."+mac, tokenListing, "94103", tokenNow)
			wantRejected(t, err, "f")
		})
	}
	later, _, _ := strings.Cut(s.Sign(tokenRate, tokenListing, "94103", exp.Add(48*time.Hour)), ".")
	_, err := s.Verify("f", later+"."+mac, tokenListing, "94103", tokenNow.Add(30*time.Hour))
	if e := wantRejected(t, err, "f"); strings.Contains(e.Fields[0].Message, "expired") {
		t.Fatalf("an edited expiry reads as expired: %v", err)
	}
	// A payload of another version, correctly MACed, is refused too.
	raw, _ := base64.RawURLEncoding.DecodeString(strings.SplitN(tok, ".", 2)[0])
	raw[0] = 2
	p := base64.RawURLEncoding.EncodeToString(raw)
	forged := p + "." + base64.RawURLEncoding.EncodeToString(s.mac(tokenListing, "94103", raw))
	_, err = s.Verify("f", forged, tokenListing, "94103", tokenNow)
	wantRejected(t, err, "f")
}

func TestRateTokenExpired(t *testing.T) {
	s := NewRateSigner([]byte(testSecret))
	tok := signTest(s)
	for _, at := range []time.Time{tokenNow.Add(RateTTL), tokenNow.Add(RateTTL + time.Second), tokenNow.Add(400 * time.Hour)} {
		_, err := s.Verify("shipping_rate_id", tok, tokenListing, "94103", at)
		if e := wantRejected(t, err, "shipping_rate_id"); !strings.Contains(e.Fields[0].Message, "expired") {
			t.Fatalf("at %v: %q does not say it expired", at, e.Fields[0].Message)
		}
	}
}

// The key is derived: a rate token is not an HMAC under the raw secret.
func TestRateTokenKeyIsDerived(t *testing.T) {
	s := NewRateSigner([]byte(testSecret))
	raw := &RateSigner{key: []byte(testSecret)}
	if _, err := raw.Verify("f", signTest(s), tokenListing, "94103", tokenNow); err == nil {
		t.Fatal("a token verified under the raw secret")
	}
}

// FuzzVerifyRate: whatever arrives as a token, listing or ZIP code,
// verification answers a rate or a VALIDATION_ERROR, never a panic, and a
// rate it answers is exactly the one signed.
func FuzzVerifyRate(f *testing.F) {
	s := NewRateSigner([]byte(testSecret))
	tok := signTest(s)
	f.Add(tok, tokenListing, "94103")
	f.Add(tok[:10], tokenListing, "94103-1234")
	f.Add("", "", "")
	f.Add(".", "x", "00000")
	f.Add("AQ.AAAAAAAAAAAAAAAAAAAAAA", tokenListing, "94103")
	f.Add("AZ\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff.AAAA", tokenListing, "94103")
	f.Fuzz(func(t *testing.T, token, listing, zip string) {
		r, err := s.Verify("shipping_rate_id", token, listing, zip, tokenNow)
		if err != nil {
			wantRejected(t, err, "shipping_rate_id")
			return
		}
		if token != tok || listing != tokenListing || r.Amount != tokenRate.Amount || r.Service != tokenRate.Service {
			t.Fatalf("verified %q for %q %q: %+v", token, listing, zip, r)
		}
	})
}
