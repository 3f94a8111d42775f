package payments

import (
	"context"
	"strings"
	"time"

	"marketplace/internal/market"
)

// The sandbox processor's card vault: ACP's delegate_payment (CONTRACT.md
// section 18). An agent platform hands over a card with an allowance and
// gets a vt_ token back; the merchant charges the token once, for at most
// the allowance, for the checkout session it names, before it expires.

// Allowance is what a delegated card may be charged for.
type Allowance struct {
	MaxAmount         int64 // cents
	Currency          string
	CheckoutSessionID string
	MerchantID        string
	ExpiresAt         time.Time
}

// DelegatedCard is a card an agent platform delegates.
type DelegatedCard struct {
	Number   string
	ExpMonth int
	ExpYear  int
	Brand    string // as the platform displays it; derived when empty
	Owner    string // the credential that delegated it
	Allow    Allowance
	Metadata map[string]string
}

// VaultToken is a delegated card and its allowance.
type VaultToken struct {
	ID        string // vt_...
	Owner     string
	Outcome   CardOutcome
	Brand     string
	Last4     string
	ExpMonth  int
	ExpYear   int
	Allow     Allowance
	Metadata  map[string]string
	PaymentID string // the payment that used it; "" while unused
	CreatedAt time.Time
}

// Reasons a token charge fails (the payment's failure code).
const (
	DeclineTokenUnknown   = "token_unknown"
	DeclineTokenUsed      = "token_already_used"
	DeclineTokenExpired   = "token_expired"
	DeclineTokenSession   = "token_session_mismatch"
	DeclineTokenAllowance = "allowance_exceeded"
)

// IsTokenDecline reports whether a payment failure code is a refusal of
// the delegated token itself (rather than of the card behind it).
func IsTokenDecline(code string) bool {
	return strings.HasPrefix(code, "token_") || code == DeclineTokenAllowance
}

// Delegate stores a card with its allowance and answers its token. A card
// number that is not one is VALIDATION_ERROR on field number; an
// allowance that cannot be charged (not positive, over MaxAmount, already
// expired) VALIDATION_ERROR on its field.
func (p *Sandbox) Delegate(ctx context.Context, c DelegatedCard) (*VaultToken, error) {
	outcome, ok := cardNumberOutcome(c.Number)
	now := p.clock.Now()
	var chk market.Check
	chk.Require(ok, "number", "is not a valid card number")
	chk.Require(c.ExpMonth >= 1 && c.ExpMonth <= 12, "exp_month", "must be a month, 1 to 12")
	chk.Require(c.ExpYear > now.Year() || c.ExpYear == now.Year() && c.ExpMonth >= int(now.Month()), "exp_year", "the card has expired")
	chk.Require(c.Allow.MaxAmount > 0 && c.Allow.MaxAmount <= MaxAmount, "max_amount", "must be from 1 to 99999999 cents")
	chk.Require(strings.EqualFold(c.Allow.Currency, "usd"), "currency", "must be usd")
	chk.Require(c.Allow.ExpiresAt.After(now), "expires_at", "must be in the future")
	if err := chk.Err(); err != nil {
		return nil, err
	}
	digits := strings.NewReplacer(" ", "", "-", "").Replace(c.Number)
	brand := strings.ToLower(strings.TrimSpace(c.Brand))
	if brand == "" {
		brand = brandOf(digits)
	}
	c.Allow.Currency = "usd"
	t := &VaultToken{ID: sandboxID("vt_"), Owner: c.Owner, Outcome: outcome, Brand: brand, Last4: digits[len(digits)-4:],
		ExpMonth: c.ExpMonth, ExpYear: c.ExpYear, Allow: c.Allow, Metadata: c.Metadata, CreatedAt: now}
	if err := p.store.InTx(ctx, func(tx SandboxTx) error { return tx.CreateSandboxVaultToken(ctx, t) }); err != nil {
		return nil, err
	}
	return t, nil
}

func brandOf(digits string) string {
	switch {
	case strings.HasPrefix(digits, "4"):
		return "visa"
	case strings.HasPrefix(digits, "34"), strings.HasPrefix(digits, "37"):
		return "amex"
	case strings.HasPrefix(digits, "5"), strings.HasPrefix(digits, "2"):
		return "mastercard"
	case strings.HasPrefix(digits, "6"):
		return "discover"
	}
	return "unknown"
}

// spendToken charges sp with the token of req, inside the transaction
// that inserts the payment: the allowance is checked and the token marked
// used under its lock, so it pays once. A refused token fails the payment.
func (p *Sandbox) spendToken(ctx context.Context, tx SandboxTx, req *ChargeRequest, sp *SandboxPayment) error {
	t, err := tx.SandboxVaultToken(ctx, req.Token)
	if market.CodeOf(err) == market.CodeNotFound {
		sp.fail(DeclineTokenUnknown, "The payment token is unknown to the processor.")
		return nil
	}
	if err != nil {
		return err
	}
	a := t.Allow
	switch {
	case t.PaymentID != "":
		sp.fail(DeclineTokenUsed, "The payment token has been used already.")
	case !p.clock.Now().Before(a.ExpiresAt):
		sp.fail(DeclineTokenExpired, "The payment token has expired.")
	case a.CheckoutSessionID != req.Metadata["checkout_session_id"]:
		sp.fail(DeclineTokenSession, "The payment token was delegated for another checkout session.")
	case req.Amount > a.MaxAmount || req.Currency != a.Currency:
		sp.fail(DeclineTokenAllowance, "The amount is over the payment token's allowance.")
	default:
		sp.apply(t.Outcome)
		t.PaymentID = sp.ID
		return tx.UpdateSandboxVaultToken(ctx, t)
	}
	return nil
}

// fail marks p failed with a code and message.
func (p *SandboxPayment) fail(code, msg string) {
	p.Status, p.FailureCode, p.FailureMessage = PaymentFailed, code, msg
}
