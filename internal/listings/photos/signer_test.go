package photos

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"marketplace/internal/market"
)

func newSigner(t *testing.T, secret string) *Signer {
	t.Helper()
	s, err := NewSigner([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const secretA = "0123456789abcdef0123456789abcdef"

func TestSignerRoundTrip(t *testing.T) {
	s := newSigner(t, secretA)
	now := time.Date(2026, 3, 1, 12, 0, 0, 500, time.UTC)
	owner := market.NewID()
	u := s.NewUpload(owner, now)

	if !market.ValidID(u.ID) {
		t.Fatalf("upload id %q is not an id", u.ID)
	}
	if want := now.Add(UploadTTL).Truncate(time.Second); !u.ExpiresAt.Equal(want) {
		t.Fatalf("expires %v, want %v", u.ExpiresAt, want)
	}
	if strings.ContainsAny(u.Token, "+/=?&# ") {
		t.Fatalf("token %q is not URL-safe", u.Token)
	}
	for _, at := range []time.Time{now, now.Add(14 * time.Minute), u.ExpiresAt.Add(-time.Nanosecond)} {
		got, err := s.Verify(u.ID, u.Token, at)
		if err != nil || got != owner {
			t.Fatalf("at %v: %q, %v", at, got, err)
		}
	}
	// A second signer with the same secret (another replica) agrees.
	if got, err := newSigner(t, secretA).Verify(u.ID, u.Token, now); err != nil || got != owner {
		t.Fatalf("other replica: %q, %v", got, err)
	}

	v := s.NewUpload(owner, now)
	if v.ID == u.ID || v.Token == u.Token {
		t.Fatal("two uploads share an id or a token")
	}
}

func TestSignerExpiry(t *testing.T) {
	s := newSigner(t, secretA)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	u := s.NewUpload("owner-1", now)
	for _, at := range []time.Time{u.ExpiresAt, now.Add(UploadTTL), now.Add(time.Hour)} {
		_, err := s.Verify(u.ID, u.Token, at)
		me := wantErr(t, err, market.CodeValidation, "token")
		if !strings.Contains(me.Message, "expired") {
			t.Fatalf("message %q", me.Message)
		}
	}
}

func TestSignerRejectsTampering(t *testing.T) {
	s := newSigner(t, secretA)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	u := s.NewUpload("owner-1", now)
	other := s.NewUpload("owner-2", now)
	payload, mac, _ := strings.Cut(u.Token, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(payload)

	reencode := func(f func(b []byte) []byte) string {
		b := f(bytes.Clone(raw))
		return base64.RawURLEncoding.EncodeToString(b) + "." + mac
	}
	flipMAC := []byte(mac)
	if flipMAC[0] == 'A' {
		flipMAC[0] = 'B'
	} else {
		flipMAC[0] = 'A'
	}

	tests := []struct {
		name, id, token string
	}{
		{"other owner", u.ID, reencode(func(b []byte) []byte { return append(b[:9], "owner-2"...) })},
		{"later expiry", u.ID, reencode(func(b []byte) []byte { b[8]++; return b })},
		{"version", u.ID, reencode(func(b []byte) []byte { b[0] = 2; return b })},
		{"altered mac", u.ID, payload + "." + string(flipMAC)},
		{"token of another upload", u.ID, other.Token},
		{"token for another id", other.ID, u.Token},
		{"id with a suffix", u.ID + "x", u.Token},
		{"other secret", u.ID, newSigner(t, "another secret that is long enough!").NewUpload("owner-1", now).Token},
		{"empty", u.ID, ""},
		{"no dot", u.ID, payload + mac},
		{"two dots", u.ID, u.Token + ".x"},
		{"padding", u.ID, payload + "=." + mac},
		{"std base64", u.ID, strings.NewReplacer("-", "+", "_", "/").Replace(u.Token) + "+"},
		{"short payload", u.ID, base64.RawURLEncoding.EncodeToString([]byte{1, 2}) + "." + mac},
		{"short mac", u.ID, payload + "." + mac[:20]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			owner, err := s.Verify(tc.id, tc.token, now)
			if owner != "" {
				t.Fatalf("owner %q returned", owner)
			}
			wantErr(t, err, market.CodeNotFound, "")
		})
	}

	// A forged expiry reads as not found even when the real one has
	// passed: the MAC is checked first.
	_, err := s.Verify(u.ID, reencode(func(b []byte) []byte { b[8]++; return b }), now.Add(time.Hour))
	wantErr(t, err, market.CodeNotFound, "")
}

func TestNewSignerWantsALongSecret(t *testing.T) {
	if _, err := NewSigner([]byte("short")); err == nil {
		t.Fatal("short secret accepted")
	}
	if _, err := NewSigner(make([]byte, MinSecretLen)); err != nil {
		t.Fatal(err)
	}
}

// Avatar and photo upload tokens come from one secret but never verify as
// each other: a photo upload URL cannot fill an avatar slot of the same id.
func TestAvatarSignerIsApart(t *testing.T) {
	photo := newSigner(t, secretA)
	avatar, err := NewAvatarSigner([]byte(secretA))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	p, a := photo.NewUpload("owner-1", now), avatar.NewUpload("owner-1", now)
	if owner, err := avatar.Verify(a.ID, a.Token, now); err != nil || owner != "owner-1" {
		t.Fatalf("avatar token: %q %v", owner, err)
	}
	_, err = avatar.Verify(p.ID, p.Token, now)
	wantErr(t, err, market.CodeNotFound, "")
	_, err = photo.Verify(a.ID, a.Token, now)
	wantErr(t, err, market.CodeNotFound, "")
	if _, err := NewAvatarSigner([]byte("short")); err == nil {
		t.Fatal("short secret accepted")
	}
}
