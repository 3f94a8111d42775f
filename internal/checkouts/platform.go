package checkouts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"time"
	"unicode/utf8"

	"marketplace/internal/market"
)

// Platform is an agent platform an admin connected (CONTRACT.md section
// 18): its agents buy here with its secret (acp_...) for guest buyers
// known by e-mail, and its webhook URL receives their orders' events,
// signed with its signing secret.
type Platform struct {
	ID            string // acpp_...
	Name          string
	WebhookURL    string
	SecretHash    string // SHA-256 of the secret, hex
	SigningSecret string
	CreatedAt     time.Time
	DeletedAt     *time.Time
}

// PlatformSecretPrefix starts every platform secret.
const PlatformSecretPrefix = "acp_"

// LooksLikePlatformSecret reports whether a bearer token is meant as a
// platform secret (and not as an agent key or a person's token).
func LooksLikePlatformSecret(s string) bool { return strings.HasPrefix(s, PlatformSecretPrefix) }

// PlatformTx is what platforms need of a store transaction.
type PlatformTx interface {
	CreatePlatform(ctx context.Context, p *Platform) error
	// PlatformByID finds a platform (deleted ones too), locking it inside
	// a transaction.
	PlatformByID(ctx context.Context, id string) (*Platform, error)
	// PlatformBySecret finds the platform that is not deleted of a secret
	// hash.
	PlatformBySecret(ctx context.Context, hash string) (*Platform, error)
	// Platforms lists the platforms not deleted, oldest first.
	Platforms(ctx context.Context) ([]Platform, error)
	DeletePlatform(ctx context.Context, id string, at time.Time) error
}

// NewPlatform is what an admin gives to connect a platform.
type NewPlatform struct {
	Name       string
	WebhookURL string
}

// ConnectedPlatform is a new platform and its two secrets, shown once.
type ConnectedPlatform struct {
	Platform
	Secret string
}

// PlatformAudit is a platform as audit entries keep it (no secrets).
type PlatformAudit struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	WebhookURL string     `json:"webhookUrl"`
	DeletedAt  *time.Time `json:"deletedAt"`
}

func (p *Platform) audit() PlatformAudit {
	return PlatformAudit{ID: p.ID, Name: p.Name, WebhookURL: p.WebhookURL, DeletedAt: p.DeletedAt}
}

func requireAdmin(actor market.Actor) error {
	if !actor.Admin {
		return market.Errorf(market.CodeForbidden, "this needs an administrator")
	}
	return nil
}

// CreatePlatform connects an agent platform (admins only).
func (s *Service) CreatePlatform(ctx context.Context, actor market.Actor, in NewPlatform) (*ConnectedPlatform, error) {
	if err := requireAdmin(actor); err != nil {
		return nil, err
	}
	in.Name, in.WebhookURL = strings.TrimSpace(in.Name), strings.TrimSpace(in.WebhookURL)
	var c market.Check
	c.Require(in.Name != "" && utf8.RuneCountInString(in.Name) <= 100 && !strings.ContainsFunc(in.Name, isControl), "name",
		"must be 1 to 100 characters, without control characters")
	if err := c.Err(); err != nil {
		return nil, err
	}
	if s.opts.CheckURL != nil {
		if err := s.opts.CheckURL(ctx, in.WebhookURL); err != nil {
			return nil, renameField(err, "url", "webhookUrl")
		}
	}
	secret := PlatformSecretPrefix + randomText(32)
	p := Platform{ID: "acpp_" + market.NewID(), Name: in.Name, WebhookURL: in.WebhookURL, SecretHash: hashSecret(secret),
		SigningSecret: "whsec_" + randomText(32), CreatedAt: s.clock.Now()}
	if err := s.platforms.InTx(ctx, func(tx PlatformTx) error { return tx.CreatePlatform(ctx, &p) }); err != nil {
		return nil, err
	}
	s.noteChange(ctx, nil, p.audit())
	return &ConnectedPlatform{Platform: p, Secret: secret}, nil
}

// Platforms lists the connected platforms (admins only).
func (s *Service) Platforms(ctx context.Context, actor market.Actor) ([]Platform, error) {
	if err := requireAdmin(actor); err != nil {
		return nil, err
	}
	return s.platforms.Read().Platforms(ctx)
}

// DeletePlatform disconnects a platform (admins only): its secret stops
// working at once; its sessions and orders stay.
func (s *Service) DeletePlatform(ctx context.Context, actor market.Actor, id string) (*Platform, error) {
	if err := requireAdmin(actor); err != nil {
		return nil, err
	}
	var before, after Platform
	err := s.platforms.InTx(ctx, func(tx PlatformTx) error {
		p, err := tx.PlatformByID(ctx, id)
		if err == nil && p.DeletedAt != nil {
			err = market.NotFound("platform")
		}
		if err != nil {
			return err
		}
		before, after = *p, *p
		now := s.clock.Now()
		after.DeletedAt = &now
		return tx.DeletePlatform(ctx, id, now)
	})
	if err != nil {
		return nil, err
	}
	s.noteChange(ctx, before.audit(), after.audit())
	return &after, nil
}

// AuthenticatePlatform finds the platform of a secret: UNAUTHORIZED when
// it is no platform's (or the platform was deleted).
func (s *Service) AuthenticatePlatform(ctx context.Context, secret string) (*Platform, error) {
	p, err := s.platforms.Read().PlatformBySecret(ctx, hashSecret(strings.TrimSpace(secret)))
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, market.Errorf(market.CodeUnauthorized, "the platform credential is not valid")
	}
	return p, err
}

// Platform reads a platform, deleted ones too (for its webhooks).
func (s *Service) Platform(ctx context.Context, id string) (*Platform, error) {
	return s.platforms.Read().PlatformByID(ctx, id)
}

func (s *Service) noteChange(ctx context.Context, before, after any) {
	if s.opts.Changes != nil {
		s.opts.Changes.NoteChange(ctx, before, after, nil)
	}
}

func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

func randomText(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// renameField gives a validation error of field from the name to.
func renameField(err error, from, to string) error {
	e := market.ErrorOf(err)
	if e == nil || e.Code != market.CodeValidation {
		return err
	}
	fields := make([]market.FieldError, len(e.Fields))
	for i, f := range e.Fields {
		if f.Field == from {
			f.Field = to
		}
		fields[i] = f
	}
	return market.Invalid(fields...)
}
