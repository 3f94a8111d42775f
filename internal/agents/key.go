// Package agents holds what lets software act for a person: agent keys and
// their scopes, the owner's spending controls, and agent-initiated
// onboarding (which ends in a key).
package agents

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"marketplace/internal/accounts"
)

// Scope is what a key may do. The canonical names are Variant A's; Variant B
// names the same three scopes buy, sell and buy_sell.
type Scope string

const (
	ScopeBuy     Scope = "buy_only"
	ScopeSell    Scope = "sell_only"
	ScopeBuySell Scope = "buy_sell"
)

// ParseScope accepts either variant's name.
func ParseScope(s string) (Scope, bool) {
	switch s {
	case "buy_only", "buy":
		return ScopeBuy, true
	case "sell_only", "sell":
		return ScopeSell, true
	case "buy_sell":
		return ScopeBuySell, true
	}
	return "", false
}

// Short is the Variant B name of the scope.
func (s Scope) Short() string {
	switch s {
	case ScopeBuy:
		return "buy"
	case ScopeSell:
		return "sell"
	}
	return string(s)
}

// Op is a class of operation a scope allows.
type Op int

const (
	OpRead Op = iota // reads: any scope
	OpBuy            // purchase, offers as buyer, watch
	OpSell           // listing create/update/delete, ship, cancel, offers as seller
)

// Allows reports whether scope s permits op.
func (s Scope) Allows(op Op) bool {
	switch op {
	case OpBuy:
		return s == ScopeBuy || s == ScopeBuySell
	case OpSell:
		return s == ScopeSell || s == ScopeBuySell
	}
	return true
}

// KeyStatus is active, frozen (paused) or revoked (dead).
type KeyStatus string

const (
	KeyActive  KeyStatus = "active"
	KeyFrozen  KeyStatus = "frozen"
	KeyRevoked KeyStatus = "revoked"
)

// FrozenReason says why a key is frozen (CONTRACT.md section 4).
type FrozenReason string

const (
	FrozenByOwner          FrozenReason = "owner"
	FrozenByAdmin          FrozenReason = "admin"
	FrozenRateLimitAbuse   FrozenReason = "rate_limit_abuse"
	FrozenPurchaseVelocity FrozenReason = "purchase_velocity"
)

// Limits are optional caps; nil means no cap at this level.
type Limits struct {
	PerTransaction *int64
	Daily          *int64
	Weekly         *int64
	Monthly        *int64
}

// Empty reports whether no cap is set.
func (l Limits) Empty() bool {
	return l.PerTransaction == nil && l.Daily == nil && l.Weekly == nil && l.Monthly == nil
}

// Key is an agent key. The secret itself is never stored, only its hash.
type Key struct {
	ID         string
	UserID     string
	Label      string
	Scope      Scope
	Status     KeyStatus
	Prefix     string // first characters of the secret, to tell keys apart
	Hash       string // hex SHA-256 of the secret
	Limits     Limits // the key's own caps, tighter than the owner's
	Metadata   map[string]any
	CreatedAt  time.Time
	LastUsedAt *time.Time
	FrozenAt   *time.Time
	RevokedAt  *time.Time
	// FrozenReason is set while Status is frozen, empty otherwise.
	FrozenReason FrozenReason
}

// Secret formats: mk_test_ or mk_live_ then 43 base64url characters (256
// bits), so a fast hash is as safe as a slow one.
const (
	testPrefix   = "mk_test_"
	livePrefix   = "mk_live_"
	secretLen    = len(testPrefix) + 43
	shownPrefix  = len(testPrefix) + 4
	secretLetter = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
)

// LooksLikeKey reports whether s is spelled like an agent key secret (it
// may still be wrong): how a credential in an Authorization header is told
// from a bearer token.
func LooksLikeKey(s string) bool {
	return strings.HasPrefix(s, testPrefix) || strings.HasPrefix(s, livePrefix)
}

func newSecret(live bool) string {
	b := make([]byte, 43)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = secretLetter[int(b[i])%64]
	}
	if live {
		return livePrefix + string(b)
	}
	return testPrefix + string(b)
}

// HashSecret is the stored form of a key secret.
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// wellFormed reports whether secret could be a key of this mode.
func wellFormed(secret string, live bool) bool {
	want := testPrefix
	if live {
		want = livePrefix
	}
	if len(secret) != secretLen || !strings.HasPrefix(secret, want) {
		return false
	}
	for _, r := range secret[len(want):] {
		if !strings.ContainsRune(secretLetter, r) {
			return false
		}
	}
	return true
}

// Tx is what agents needs from a transaction.
type Tx interface {
	accounts.Tx
	CreateKey(ctx context.Context, k *Key) error
	UpdateKey(ctx context.Context, k *Key) error
	KeyByID(ctx context.Context, id string) (*Key, error)
	KeysOf(ctx context.Context, userID string) ([]Key, error)
	KeyByHash(ctx context.Context, hash string) (*Key, *accounts.User, error)
	TouchKey(ctx context.Context, id string, at time.Time) error
	SystemAuditTx

	Controls(ctx context.Context, userID string) (*Controls, error)
	PutControls(ctx context.Context, userID string, c Controls, at time.Time) error
	SpendingSnapshot(ctx context.Context, q SpentQuery) (*SpendingSnapshot, error)

	CreateOnboarding(ctx context.Context, o *Onboarding) error
	UpdateOnboarding(ctx context.Context, o *Onboarding) error
	OnboardingByID(ctx context.Context, id string) (*Onboarding, error)
	OnboardingByMagicHash(ctx context.Context, hash string) (*Onboarding, error)
	ExpireOnboardings(ctx context.Context, now time.Time) (int, error)
}

// Store opens transactions and read handles over agents' Tx.
type Store interface {
	InTx(ctx context.Context, fn func(Tx) error) error
	Read() Tx
}
