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

	"marketplace/internal/accounts"
	"marketplace/internal/events"
	"marketplace/internal/market"
	"marketplace/internal/orders"
	"marketplace/internal/webhooks"
)

// Platform is an agent platform an admin connected (CONTRACT.md section
// 18): its agents buy here with its secret (acp_...) for guest buyers
// known by e-mail, and its webhook URL receives their orders' events,
// signed with its signing secret.
type Platform struct {
	ID            string // acpp_...
	AccountID     string // its account (role platform), which owns the endpoint
	EndpointID    string // its webhook endpoint
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
	// The platform's account and its webhook endpoint, made with it.
	CreateUser(ctx context.Context, u *accounts.User) error
	InsertWebhookEndpoint(ctx context.Context, e *webhooks.Endpoint) error
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
	secret, now := PlatformSecretPrefix+randomText(32), s.clock.Now()
	p := Platform{ID: "acpp_" + market.NewID(), Name: in.Name, WebhookURL: in.WebhookURL, SecretHash: hashSecret(secret),
		SigningSecret: "whsec_" + randomText(32), CreatedAt: now}
	account := accounts.PlatformAccount(p.ID, p.Name, now)
	ep := webhooks.NewPlatformEndpoint(account.ID, p.WebhookURL, p.SigningSecret, now)
	p.AccountID, p.EndpointID = account.ID, ep.ID
	err := s.platforms.InTx(ctx, func(tx PlatformTx) error {
		if err := tx.CreateUser(ctx, account); err != nil {
			return err
		}
		if err := tx.InsertWebhookEndpoint(ctx, ep); err != nil {
			return err
		}
		return tx.CreatePlatform(ctx, &p)
	})
	if err != nil {
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
	if s.opts.DisableEndpoint != nil {
		if err := s.opts.DisableEndpoint(ctx, before.EndpointID); err != nil {
			return nil, err
		}
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

// AdminPlatform reads a platform, deleted ones too (admins only).
func (s *Service) AdminPlatform(ctx context.Context, actor market.Actor, id string) (*Platform, error) {
	if err := requireAdmin(actor); err != nil {
		return nil, err
	}
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

// OrderEventTypes are the order events a platform hears of: its order was
// made (order_create), then shipped, delivered, completed, cancelled or
// refunded (order_update).
var OrderEventTypes = map[string]bool{"order.created": true, "order.shipped": true, "order.delivered": true,
	"order.completed": true, "order.cancelled": true, "refund.issued": true}

// SinkTx is what PlatformOf reads in an event's transaction.
type SinkTx interface {
	OrderByID(ctx context.Context, id string) (*orders.Order, error)
}

// PlatformOf is the connected platform whose checkout session made the
// order an order event is about, nil for every other event, in the
// transaction that records it.
func (s *Service) PlatformOf(ctx context.Context, tx SinkTx, e *events.Event) (*Platform, error) {
	if e.EntityType != "order" || !OrderEventTypes[e.Type] {
		return nil, nil
	}
	o, err := tx.OrderByID(ctx, e.EntityID)
	if err != nil || o.CheckoutSessionID == "" {
		return nil, err
	}
	// Both were committed before the order existed: no lock is needed.
	sess, err := s.store.Read().CheckoutByID(ctx, o.CheckoutSessionID)
	if market.CodeOf(err) == market.CodeNotFound || err == nil && sess.PlatformID == "" {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p, err := s.platforms.Read().PlatformByID(ctx, sess.PlatformID)
	if err != nil || p.DeletedAt != nil {
		return nil, err
	}
	return p, nil
}
