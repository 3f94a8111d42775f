package notify

import (
	"context"
	"fmt"
	"time"

	"marketplace/internal/agents"
	"marketplace/internal/market"
	"marketplace/internal/payments"
)

// OnboardingLink mails an agent-initiated onboarding's magic link to the
// owner's address, in the transaction that creates the session. The
// address may have no account yet: the mail is the address's (user id "").
func (s *Service) OnboardingLink(ctx context.Context, tx Tx, o *agents.Onboarding, link string) error {
	v := &view{Name: o.OwnerFirstName, Agent: o.AgentLabel, URL: link, Base: s.opts.PublicURL,
		ExpiresAt: o.ExpiresAt.UTC().Format("Jan 2, 2006 15:04 UTC")}
	return s.direct(ctx, tx, KindOnboardingLink, "", o.OwnerEmail, v)
}

// PayoutLink mails a payout account's onboarding link to to, for userID,
// in the transaction that records the sending.
func (s *Service) PayoutLink(ctx context.Context, tx Tx, userID, to, link string) error {
	name := to
	if u, err := tx.UserByID(ctx, userID); err == nil {
		name = displayName(u)
	}
	return s.direct(ctx, tx, KindPayoutLink, userID, to, &view{Name: name, URL: link, Base: s.opts.PublicURL})
}

func (s *Service) direct(ctx context.Context, tx Tx, kind, userID, to string, v *view) error {
	subject, text, html, err := render(kind, v)
	if err != nil {
		return market.Internal(fmt.Errorf("mail %s: %w", kind, err))
	}
	return s.queueMail(ctx, tx, &Mail{UserID: userID, To: to, Kind: kind, Subject: subject, Text: text, HTML: html})
}

// AgentsMailer is the service as the agents area's Mailer.
type AgentsMailer struct{ S *Service }

// MailOnboardingLink implements agents.Mailer.
func (m AgentsMailer) MailOnboardingLink(ctx context.Context, tx agents.Tx, o *agents.Onboarding, link string) error {
	t, ok := tx.(Tx)
	if !ok {
		return market.Internal(fmt.Errorf("notify: %T is not a mail transaction", tx))
	}
	return m.S.OnboardingLink(ctx, t, o, link)
}

// PaymentsMailer is the service as the payments area's Mailer.
type PaymentsMailer struct{ S *Service }

// MailPayoutLink implements payments.Mailer.
func (m PaymentsMailer) MailPayoutLink(ctx context.Context, tx payments.Tx, userID, to, link string) error {
	t, ok := tx.(Tx)
	if !ok {
		return market.Internal(fmt.Errorf("notify: %T is not a mail transaction", tx))
	}
	return m.S.PayoutLink(ctx, t, userID, to, link)
}

var (
	_ agents.Mailer   = AgentsMailer{}
	_ payments.Mailer = PaymentsMailer{}
)

// Deliver sends one queued mail through SMTP (the mail job). A mail sent
// already is left alone; a failure is recorded on the mail and returned,
// so the job retries; final marks the last attempt (the mail is failed).
func (s *Service) Deliver(ctx context.Context, id string, final bool) error {
	if s.server == nil {
		return nil
	}
	m, err := s.store.Read().MailByID(ctx, id)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil
	}
	if err != nil {
		return err
	}
	if m.Status == StatusSent {
		return nil
	}
	sendErr := s.server.send(ctx, s.opts.From, m, time.Now())
	m.Attempts++
	if sendErr == nil {
		now := s.clock.Now()
		m.Status, m.SentAt, m.LastError = StatusSent, &now, ""
	} else {
		m.LastError = sendErr.Error()
		if final {
			m.Status = StatusFailed
		}
	}
	if err := s.store.InTx(ctx, func(tx Tx) error { return tx.UpdateMail(ctx, m) }); err != nil {
		return err
	}
	return sendErr
}
