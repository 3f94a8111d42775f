package accounts

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// argon2id parameters (RFC 9106's second recommended option, with memory
// scaled to what a 2-core service can afford per login).
const (
	argonThreads = 1
	argonKeyLen  = 32
	saltLen      = 16
)

// The cost of new hashes; a hash carries its own parameters, so verifying
// follows whatever a hash was made with.
var (
	argonTime   uint32 = 2
	argonMemory uint32 = 19 * 1024 // KiB
)

// UseTestPasswordCost makes new hashes cheap: API test suites register
// hundreds of users, and the full cost under the race detector took a
// large share of their time. Only test kits call it.
func UseTestPasswordCost() { argonTime, argonMemory = 1, 64 }

// HashPassword returns an encoded argon2id hash of pw.
func HashPassword(pw string) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(pw), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, argonMemory, argonTime, argonThreads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// dummyHash is verified against when an account does not exist, so that a
// login for an unknown e-mail costs the same time as a wrong password.
var dummyHash, _ = HashPassword("not-a-real-password-0000")

// CheckPassword reports whether pw matches the encoded hash.
func CheckPassword(encoded, pw string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var mem uint32
	var t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &mem, &t, &p); err != nil {
		return false
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil {
		return false
	}
	got := argon2.IDKey([]byte(pw), salt, t, mem, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}
