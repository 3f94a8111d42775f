package shipping

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strings"
	"time"

	"marketplace/internal/market"
)

// RateTTL is how long a quoted rate may be redeemed (CONTRACT.md section 7).
const RateTTL = 24 * time.Hour

// RateSigner issues and checks rate tokens: opaque, URL-safe strings that
// carry a rate (carrier, service, amount, estimated days, expiry) and are
// bound to one listing and one destination ZIP code, so a purchase can take
// the amount from the token and never from what a client says it costs.
// Nothing is stored: the MAC is the proof.
type RateSigner struct {
	key []byte
}

// NewRateSigner derives the token key from secret (the service's JWT
// secret). The derivation keeps the key apart from every other use of the
// secret, so no other token of the service verifies as a rate.
func NewRateSigner(secret []byte) *RateSigner {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("shipping-rate-v1"))
	return &RateSigner{key: m.Sum(nil)}
}

const (
	rateTokenVersion = 1
	// The MAC is HMAC-SHA256 cut to 128 bits (as HMAC-SHA-256-128 is):
	// forging one still takes 2^128 tries, and the token stays short.
	rateMACLen = 16
	// maxRateToken bounds what Verify decodes; real tokens are under 100.
	maxRateToken = 256
)

// Sign issues the token for rate r, bound to listingID and zip (5-digit
// form), valid until expires (kept to the second).
//
// Token = base64url(payload) "." base64url(mac), payload = version, then
// uvarints expiry (Unix seconds), amount, estimated days, and the carrier
// and service names each after its uvarint length. The MAC covers the
// listing id and ZIP code (each after its length) and the payload.
func (s *RateSigner) Sign(r CarrierRate, listingID, zip string, expires time.Time) string {
	p := make([]byte, 0, 32+len(r.Carrier)+len(r.Service))
	p = append(p, rateTokenVersion)
	p = binary.AppendUvarint(p, uint64(expires.Unix()))
	p = binary.AppendUvarint(p, uint64(max(r.Amount, 0)))
	p = binary.AppendUvarint(p, uint64(max(r.EstimatedDays, 0)))
	p = appendString(p, r.Carrier)
	p = appendString(p, r.Service)
	return base64.RawURLEncoding.EncodeToString(p) + "." +
		base64.RawURLEncoding.EncodeToString(s.mac(listingID, zip, p))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func (s *RateSigner) mac(listingID, zip string, payload []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	var head []byte
	head = appendString(head, listingID)
	head = appendString(head, zip)
	m.Write(head)
	m.Write(payload)
	return m.Sum(nil)[:rateMACLen]
}

// Verify checks a rate token for a purchase of listingID shipped to zip
// (either ZIP form) at now, and returns the rate it carries. field names
// the request field in errors (shippingRateId, carrierRateId).
//
// Errors are VALIDATION_ERROR on field: one message for a token that is
// malformed, altered, or quoted for another listing or ZIP code (they
// cannot be told apart, and a prober learns nothing), another for a genuine
// token past its expiry. The expiry is checked after the MAC, so an altered
// expiry never reads as "expired".
func (s *RateSigner) Verify(field, token, listingID, zip string, now time.Time) (*Rate, error) {
	bad := market.Invalid(market.FieldError{Field: field,
		Message: "is not a rate quoted for this listing and ZIP code; request a new shipping quote"})
	if len(token) > maxRateToken {
		return nil, bad
	}
	zip5, err := NormalizeZip(zip)
	if err != nil {
		return nil, bad
	}
	p64, m64, ok := strings.Cut(token, ".")
	if !ok {
		return nil, bad
	}
	payload, err := base64.RawURLEncoding.Strict().DecodeString(p64)
	if err != nil {
		return nil, bad
	}
	got, err := base64.RawURLEncoding.Strict().DecodeString(m64)
	if err != nil || len(got) != rateMACLen || !hmac.Equal(got, s.mac(listingID, zip5, payload)) {
		return nil, bad
	}
	r, exp, ok := parseRatePayload(payload)
	if !ok {
		return nil, bad
	}
	if !now.Before(exp) {
		return nil, market.Invalid(market.FieldError{Field: field,
			Message: "the quoted rate has expired (rates are valid for 24 hours); request a new shipping quote"})
	}
	r.RateID, r.ExpiresAt = token, exp
	return r, nil
}

// parseRatePayload reads what Sign wrote; anything else is not ok.
func parseRatePayload(p []byte) (*Rate, time.Time, bool) {
	if len(p) == 0 || p[0] != rateTokenVersion {
		return nil, time.Time{}, false
	}
	p = p[1:]
	var nums [3]uint64
	for i := range nums {
		v, n := binary.Uvarint(p)
		if n <= 0 {
			return nil, time.Time{}, false
		}
		nums[i], p = v, p[n:]
	}
	var strs [2]string
	for i := range strs {
		l, n := binary.Uvarint(p)
		if n <= 0 || l > uint64(len(p)-n) {
			return nil, time.Time{}, false
		}
		strs[i], p = string(p[n:n+int(l)]), p[n+int(l):]
	}
	// Bounds keep the conversions below exact; Sign never exceeds them.
	const maxUnix, maxAmount, maxDays = 1 << 40, 1 << 40, 1 << 16
	if len(p) != 0 || nums[0] > maxUnix || nums[1] > maxAmount || nums[2] > maxDays {
		return nil, time.Time{}, false
	}
	r := &Rate{Carrier: strs[0], Service: strs[1], Amount: int64(nums[1]), EstimatedDays: int(nums[2])}
	return r, time.Unix(int64(nums[0]), 0).UTC(), true
}
