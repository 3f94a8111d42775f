package photos

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strings"
	"time"

	"marketplace/internal/market"
)

// UploadTTL is how long an upload URL may be used.
const UploadTTL = 15 * time.Minute

// Upload is one signed upload slot. The URL handed out carries ID and
// Token; the service keeps no state until the PUT arrives, when the upload
// row (keyed by ID) enforces single use.
type Upload struct {
	ID        string
	Token     string
	ExpiresAt time.Time
}

// Signer signs and verifies upload tokens.
type Signer struct {
	key []byte
}

// MinSecretLen is the shortest secret NewSigner takes.
const MinSecretLen = 32

// NewSigner derives the upload-signing key of listing photos from secret.
// The derivation keeps this key apart from any other use of the same secret
// (the JWT secret, say), so a token of one kind never verifies as the other.
func NewSigner(secret []byte) (*Signer, error) {
	return signerFor(secret, "marketplace photo upload v1")
}

// NewAvatarSigner derives the signing key of avatar uploads from secret,
// apart from the photos' key: a photo upload token is no avatar one.
func NewAvatarSigner(secret []byte) (*Signer, error) {
	return signerFor(secret, "marketplace avatar upload v1")
}

func signerFor(secret []byte, purpose string) (*Signer, error) {
	if len(secret) < MinSecretLen {
		return nil, errors.New("photos: upload signing secret must be at least 32 bytes")
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(purpose))
	return &Signer{key: m.Sum(nil)}, nil
}

const tokenVersion = 1

// NewUpload issues a fresh upload slot for ownerID, valid for UploadTTL
// from now.
//
// Token = base64url(version | expiry unix seconds | ownerID) "." base64url(mac),
// the MAC being HMAC-SHA256 over the upload id, the owner and the expiry.
func (s *Signer) NewUpload(ownerID string, now time.Time) Upload {
	id := market.NewID()
	exp := now.Add(UploadTTL).UTC().Truncate(time.Second)
	payload := make([]byte, 9, 9+len(ownerID))
	payload[0] = tokenVersion
	binary.BigEndian.PutUint64(payload[1:9], uint64(exp.Unix()))
	payload = append(payload, ownerID...)
	tok := base64.RawURLEncoding.EncodeToString(payload) + "." +
		base64.RawURLEncoding.EncodeToString(s.mac(id, ownerID, exp.Unix()))
	return Upload{ID: id, Token: tok, ExpiresAt: exp}
}

func (s *Signer) mac(id, owner string, exp int64) []byte {
	m := hmac.New(sha256.New, s.key)
	var b [8]byte
	// Length prefixes make the encoding unambiguous: no (id, owner) pair
	// can be shifted into another with the same MAC input.
	binary.BigEndian.PutUint32(b[:4], uint32(len(id)))
	m.Write(b[:4])
	m.Write([]byte(id))
	binary.BigEndian.PutUint32(b[:4], uint32(len(owner)))
	m.Write(b[:4])
	m.Write([]byte(owner))
	binary.BigEndian.PutUint64(b[:], uint64(exp))
	m.Write(b[:])
	return m.Sum(nil)
}

// Verify checks an upload URL's token for uploadID and returns the owner it
// was issued to.
//
// Errors: a token that is malformed, altered or issued for another upload
// is NOT_FOUND ("upload not found"): it names no upload this service issued,
// and a prober learns nothing from it. A genuine token past its expiry is
// VALIDATION_ERROR on "token": the caller did nothing wrong but wait too
// long, and the message tells them to ask for new upload URLs. The expiry is
// checked only after the MAC, so an altered expiry is "not found", never
// "expired".
func (s *Signer) Verify(uploadID, token string, now time.Time) (string, error) {
	notFound := market.NotFound("upload")
	p64, m64, ok := strings.Cut(token, ".")
	if !ok {
		return "", notFound
	}
	payload, err := base64.RawURLEncoding.Strict().DecodeString(p64)
	if err != nil || len(payload) < 9 || payload[0] != tokenVersion {
		return "", notFound
	}
	got, err := base64.RawURLEncoding.Strict().DecodeString(m64)
	if err != nil || len(got) != sha256.Size {
		return "", notFound
	}
	exp := int64(binary.BigEndian.Uint64(payload[1:9]))
	owner := string(payload[9:])
	if !hmac.Equal(got, s.mac(uploadID, owner, exp)) {
		return "", notFound
	}
	if !now.Before(time.Unix(exp, 0)) {
		return "", market.Invalid(market.FieldError{Field: "token",
			Message: "the upload URL has expired; request new upload URLs"})
	}
	return owner, nil
}
