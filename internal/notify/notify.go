// Package notify is the e-mail channel of CONTRACT.md section 12: each
// public event that concerns a person becomes a mail rendered from
// templates (plain text and HTML), queued in the transaction that records
// the event, for each recipient whose preferences allow it; and the two
// mails the service owes people directly (the onboarding magic link, the
// payout onboarding link). Every mail is kept in the outbox; with an SMTP
// server configured a background job sends it.
package notify

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/events"
	"marketplace/internal/listings"
	"marketplace/internal/market"
)

// Outbox statuses: kept (no SMTP server: only in the outbox), queued (the
// job will send it), sent, failed (the job gave up; last error recorded).
const (
	StatusKept   = "kept"
	StatusQueued = "queued"
	StatusSent   = "sent"
	StatusFailed = "failed"
)

// Direct mail kinds; event mails have their event's type as kind.
const (
	KindOnboardingLink = "onboarding.magic_link"
	KindPayoutLink     = "payout_account.onboarding_link"
)

// Mail is one message in the outbox.
type Mail struct {
	ID        string
	UserID    string // "" for an address with no account yet
	To        string
	Kind      string
	EventID   string
	Subject   string
	Text      string
	HTML      string
	Status    string
	Attempts  int
	LastError string
	CreatedAt time.Time
	SentAt    *time.Time
}

// Tx is what the e-mail channel needs from a transaction.
type Tx interface {
	events.PrefsTx
	UserByID(ctx context.Context, id string) (*accounts.User, error)
	ListingByID(ctx context.Context, id string) (*listings.Listing, error)
	QueueMail(ctx context.Context, m *Mail) error
	MailByID(ctx context.Context, id string) (*Mail, error)
	UpdateMail(ctx context.Context, m *Mail) error
	// Outbox lists the mails to userID or to email, newest first.
	Outbox(ctx context.Context, userID, email string, limit int) ([]Mail, error)
	SQLTx() *sql.Tx
}

// Store opens transactions and read handles over Tx.
type Store interface {
	InTx(ctx context.Context, fn func(Tx) error) error
	Read() Tx
}

// Enqueuer schedules the sending of a queued mail in the transaction that
// queues it (the job queue).
type Enqueuer interface {
	EnqueueMail(ctx context.Context, tx Tx, mailID string) error
}

// Options configure the channel.
type Options struct {
	// SMTP is the server mails go out through (smtp://user:pass@host:port);
	// "" keeps them in the outbox only.
	SMTP string
	// From is the sender address.
	From string
	// PublicURL is the base of the links in mails.
	PublicURL string
	// Queue sends the queued mails (the job queue); nil keeps them in the
	// outbox.
	Queue Enqueuer
}

// Service renders, queues and sends mails.
type Service struct {
	store  Store
	clock  market.Clock
	opts   Options
	server *smtpServer
	queue  Enqueuer
}

// NewService builds the e-mail channel; a bad SMTP URL is an error.
func NewService(store Store, clock market.Clock, opts Options) (*Service, error) {
	s := &Service{store: store, clock: clock, opts: opts, queue: opts.Queue}
	if opts.SMTP != "" {
		srv, err := parseSMTP(opts.SMTP)
		if err != nil {
			return nil, err
		}
		s.server = srv
	}
	return s, nil
}

// Sending reports whether mails go out through SMTP.
func (s *Service) Sending() bool { return s.server != nil }

// Sink is told of each public event in its transaction (store.OnEvent):
// each recipient whose preferences allow e-mail for its category gets the
// event's mail, when the event has one for them.
func (s *Service) Sink(ctx context.Context, tx Tx, e *events.Event) error {
	if !mailed(e.Type) {
		return nil
	}
	for _, uid := range e.Recipients {
		prefs, err := tx.NotificationPrefs(ctx, uid)
		if err != nil {
			return err
		}
		if !prefs.Allows(e.Type, events.ChannelEmail) {
			continue
		}
		u, err := tx.UserByID(ctx, uid)
		if market.CodeOf(err) == market.CodeNotFound {
			continue
		}
		if err != nil {
			return err
		}
		if u.Email == "" {
			continue
		}
		v := s.eventView(ctx, tx, e, u)
		if v == nil {
			continue
		}
		subject, text, html, err := render(e.Type, v)
		if err != nil {
			return market.Internal(fmt.Errorf("mail %s: %w", e.Type, err))
		}
		if subject == "" {
			continue // nothing to tell this recipient
		}
		m := &Mail{UserID: u.ID, To: u.Email, Kind: e.Type, EventID: e.ID, Subject: subject, Text: text, HTML: html}
		if err := s.queueMail(ctx, tx, m); err != nil {
			return err
		}
	}
	return nil
}

// queueMail writes m to the outbox and, with an SMTP server, schedules it.
func (s *Service) queueMail(ctx context.Context, tx Tx, m *Mail) error {
	m.ID = market.NewID()
	m.CreatedAt = s.clock.Now()
	m.Status = StatusKept
	if s.server != nil && s.queue != nil {
		m.Status = StatusQueued
	}
	if err := tx.QueueMail(ctx, m); err != nil {
		return err
	}
	if m.Status == StatusQueued {
		return s.queue.EnqueueMail(ctx, tx, m.ID)
	}
	return nil
}

// Outbox lists the caller's mails (to the user, or to the user's address
// before the account existed), newest first.
func (s *Service) Outbox(ctx context.Context, userID string, limit int) ([]Mail, error) {
	tx := s.store.Read()
	u, err := tx.UserByID(ctx, userID)
	if err != nil {
		return nil, err
	}
	return tx.Outbox(ctx, u.ID, u.Email, limit)
}
