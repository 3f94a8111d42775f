package payments

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"
	"unicode/utf8"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
)

// Sandbox is the processor of sandbox mode. Payout accounts are local and
// their onboarding link is a page of this service that verifies at once;
// customers, cards, payments, refunds and transfers live in the sandbox_*
// tables, so a restart loses nothing. It implements Processor and Gateway.
//
// Cards come from test tokens (ConfirmSetup) or test card numbers (the
// hosted payment page, PayWithCard), each with a fixed outcome:
//
//	pm_card_visa, pm_card_mastercard, pm_card_amex      succeed
//	pm_card_chargeDeclined                              decline: card_declined
//	pm_card_chargeDeclinedInsufficientFunds             decline: insufficient_funds
//	pm_card_authenticationRequired                      off-session: requires_action
//	4000000000000002                                    decline: card_declined
//	4000000000009995                                    decline: insufficient_funds
//	4000002500003155                                    requires_action
//	any other valid card number (4242424242424242 ...)  succeed
type Sandbox struct {
	PublicURL string
	store     SandboxStore
	clock     market.Clock
}

// NewSandbox builds the sandbox processor on its store.
func NewSandbox(publicURL string, store SandboxStore, clock market.Clock) *Sandbox {
	return &Sandbox{PublicURL: publicURL, store: store, clock: clock}
}

var (
	_ Processor = (*Sandbox)(nil)
	_ Gateway   = (*Sandbox)(nil)
)

// SandboxOnboardingPath is where the sandbox onboarding page is served.
const SandboxOnboardingPath = "/sandbox/connect/onboarding/"

// SandboxDashboardPath is where the sandbox seller dashboard is served.
const SandboxDashboardPath = "/sandbox/connect/dashboard/"

// DashboardLinkLifetime is how long a sandbox dashboard link works.
const DashboardLinkLifetime = 24 * time.Hour

// SandboxCustomer is a customer of the sandbox processor, one per user.
type SandboxCustomer struct {
	ID        string // cus_sbx_...
	UserID    string
	Email     string
	CreatedAt time.Time
}

// SandboxSetupIntent is a setup intent of the sandbox processor.
type SandboxSetupIntent struct {
	SetupIntent
	// Once succeeded: the card it saved and the token it was confirmed with.
	PaymentMethodID string
	ConfirmedWith   string
	CreatedAt       time.Time
}

// CardOutcome is what charging a sandbox card does.
type CardOutcome string

const (
	OutcomeSucceed           CardOutcome = "succeed"
	OutcomeDecline           CardOutcome = "decline"
	OutcomeInsufficientFunds CardOutcome = "insufficient_funds"
	OutcomeAuthenticate      CardOutcome = "authenticate"
)

// SandboxCard is a saved card of the sandbox processor.
type SandboxCard struct {
	Card
	CustomerID string // "" once detached
	Outcome    CardOutcome
	CreatedAt  time.Time
}

// SandboxPayment is a payment with what the sandbox keeps beside it.
type SandboxPayment struct {
	Payment
	CustomerID      string
	PaymentMethodID string // the card charged; "" for the hosted page
	Currency        string
	Description     string
	Metadata        map[string]string
	UpdatedAt       time.Time
}

// SandboxRefund is a refund with its idempotency key.
type SandboxRefund struct {
	Refund
	IdempotencyKey string
	Reason         string
	CreatedAt      time.Time
}

// SandboxTransfer is a transfer with its idempotency key.
type SandboxTransfer struct {
	Transfer
	IdempotencyKey string
	Metadata       map[string]string
	CreatedAt      time.Time
}

// SandboxReversal is a transfer reversal with its idempotency key.
type SandboxReversal struct {
	TransferReversal
	IdempotencyKey string
	CreatedAt      time.Time
}

// SandboxDashboardLink is a login link to the sandbox seller dashboard.
type SandboxDashboardLink struct {
	Token     string
	AccountID string // the payout account's external id
	ExpiresAt time.Time
	CreatedAt time.Time
}

// SandboxTx is what the sandbox processor needs from a transaction. The
// Insert methods add a row unless one with the same unique key (user,
// idempotency key) exists, and report whether they added it; the caller
// then reads the existing one.
type SandboxTx interface {
	InsertSandboxCustomer(ctx context.Context, c *SandboxCustomer) (bool, error)
	SandboxCustomer(ctx context.Context, id string) (*SandboxCustomer, error)
	SandboxCustomerOf(ctx context.Context, userID string) (*SandboxCustomer, error)
	CreateSandboxSetupIntent(ctx context.Context, si *SandboxSetupIntent) error
	SandboxSetupIntent(ctx context.Context, id string) (*SandboxSetupIntent, error)
	UpdateSandboxSetupIntent(ctx context.Context, si *SandboxSetupIntent) error
	CreateSandboxCard(ctx context.Context, c *SandboxCard) error
	SandboxCard(ctx context.Context, id string) (*SandboxCard, error)
	DetachSandboxCard(ctx context.Context, id string) error
	InsertSandboxPayment(ctx context.Context, p *SandboxPayment) (bool, error)
	SandboxPayment(ctx context.Context, id string) (*SandboxPayment, error)
	SandboxPaymentByKey(ctx context.Context, key string) (*SandboxPayment, error)
	UpdateSandboxPayment(ctx context.Context, p *SandboxPayment) error
	InsertSandboxRefund(ctx context.Context, r *SandboxRefund) (bool, error)
	SandboxRefundByKey(ctx context.Context, key string) (*SandboxRefund, error)
	InsertSandboxTransfer(ctx context.Context, t *SandboxTransfer) (bool, error)
	SandboxTransferByKey(ctx context.Context, key string) (*SandboxTransfer, error)
	SandboxTransfersTo(ctx context.Context, destination string) ([]SandboxTransfer, error)
	// SandboxTransfer finds a transfer, locking it inside a transaction.
	SandboxTransfer(ctx context.Context, id string) (*SandboxTransfer, error)
	// AddSandboxReversal inserts r and adds its amount to its transfer's
	// reversed, unless r's idempotency key is taken.
	AddSandboxReversal(ctx context.Context, r *SandboxReversal) (bool, error)
	SandboxReversalByKey(ctx context.Context, key string) (*SandboxReversal, error)
	CreateSandboxVaultToken(ctx context.Context, t *VaultToken) error
	// SandboxVaultToken finds a delegated card token, locking it inside a
	// transaction.
	SandboxVaultToken(ctx context.Context, id string) (*VaultToken, error)
	UpdateSandboxVaultToken(ctx context.Context, t *VaultToken) error
	CreateSandboxDashboardLink(ctx context.Context, l *SandboxDashboardLink) error
	SandboxDashboardLink(ctx context.Context, token string) (*SandboxDashboardLink, error)
}

// SandboxStore opens transactions and read handles over SandboxTx.
type SandboxStore interface {
	InTx(ctx context.Context, fn func(SandboxTx) error) error
	Read() SandboxTx
}

// Name identifies the processor.
func (*Sandbox) Name() string { return "sandbox" }

// CreateAccount makes a sandbox account id.
func (*Sandbox) CreateAccount(context.Context, *accounts.User, string, string) (string, error) {
	return sandboxID("acct_sandbox_"), nil
}

// OnboardingURL is the sandbox onboarding page for a.
func (p *Sandbox) OnboardingURL(_ context.Context, a *PayoutAccount) (string, error) {
	return p.PublicURL + SandboxOnboardingPath + a.OnboardingToken, nil
}

// DashboardURL hands out a new login link to the sandbox seller dashboard
// of a, working for DashboardLinkLifetime.
func (p *Sandbox) DashboardURL(ctx context.Context, a *PayoutAccount) (string, error) {
	now := p.clock.Now()
	l := &SandboxDashboardLink{Token: newToken(), AccountID: a.ExternalID, ExpiresAt: now.Add(DashboardLinkLifetime), CreatedAt: now}
	err := p.store.InTx(ctx, func(tx SandboxTx) error { return tx.CreateSandboxDashboardLink(ctx, l) })
	if err != nil {
		return "", err
	}
	return p.PublicURL + SandboxDashboardPath + l.Token, nil
}

// DashboardLink resolves a dashboard token that has not expired.
func (p *Sandbox) DashboardLink(ctx context.Context, token string) (*SandboxDashboardLink, error) {
	if !wellFormedToken(token) {
		return nil, market.NotFound("dashboard link")
	}
	l, err := p.store.Read().SandboxDashboardLink(ctx, token)
	if market.CodeOf(err) == market.CodeNotFound || err == nil && !p.clock.Now().Before(l.ExpiresAt) {
		return nil, market.NotFound("dashboard link")
	}
	return l, err
}

// TransfersTo lists the transfers made to a payout account, newest first.
func (p *Sandbox) TransfersTo(ctx context.Context, accountID string) ([]SandboxTransfer, error) {
	return p.store.Read().SandboxTransfersTo(ctx, accountID)
}

// CreateCustomer returns the user's sandbox customer, made on first use:
// concurrent calls for one user get the same customer.
func (p *Sandbox) CreateCustomer(ctx context.Context, u *accounts.User) (string, error) {
	var id string
	err := p.store.InTx(ctx, func(tx SandboxTx) error {
		c := &SandboxCustomer{ID: sandboxID("cus_sbx_"), UserID: u.ID, Email: u.Email, CreatedAt: p.clock.Now()}
		added, err := tx.InsertSandboxCustomer(ctx, c)
		if err != nil || added {
			id = c.ID
			return err
		}
		existing, err := tx.SandboxCustomerOf(ctx, u.ID)
		if err != nil {
			return err
		}
		id = existing.ID
		return nil
	})
	return id, err
}

// CreateSetupIntent starts saving a card for a customer.
func (p *Sandbox) CreateSetupIntent(ctx context.Context, customerID string) (*SetupIntent, error) {
	var out *SetupIntent
	err := p.store.InTx(ctx, func(tx SandboxTx) error {
		if !wellFormedToken(customerID) {
			return market.NotFound("customer")
		}
		if _, err := tx.SandboxCustomer(ctx, customerID); err != nil {
			return err
		}
		id := sandboxID("seti_sbx_")
		si := &SandboxSetupIntent{SetupIntent: SetupIntent{ID: id, ClientSecret: id + "_secret_" + newToken(),
			CustomerID: customerID, Status: string(SetupPending)}, CreatedAt: p.clock.Now()}
		if err := tx.CreateSandboxSetupIntent(ctx, si); err != nil {
			return err
		}
		out = &si.SetupIntent
		return nil
	})
	return out, err
}

// testTokens are the sandbox's payment method tokens.
var testTokens = map[string]struct {
	brand, last4 string
	outcome      CardOutcome
}{
	"pm_card_visa":                            {"visa", "4242", OutcomeSucceed},
	"pm_card_mastercard":                      {"mastercard", "4444", OutcomeSucceed},
	"pm_card_amex":                            {"amex", "0005", OutcomeSucceed},
	"pm_card_chargeDeclined":                  {"visa", "0002", OutcomeDecline},
	"pm_card_chargeDeclinedInsufficientFunds": {"visa", "9995", OutcomeInsufficientFunds},
	"pm_card_authenticationRequired":          {"visa", "3155", OutcomeAuthenticate},
}

// ConfirmSetup saves the card of a test token for the setup intent's
// customer. A setup intent saves one card: confirming it again with the same
// token answers that card (as Stripe accepts a setup intent its form already
// confirmed), with another token it is INVALID_STATE.
func (p *Sandbox) ConfirmSetup(ctx context.Context, setupIntentID, customerID, paymentMethod string) (*Card, error) {
	tok, ok := testTokens[paymentMethod]
	if !ok {
		return nil, market.Invalid(market.FieldError{Field: "payment_method",
			Message: "is not a sandbox test token (use pm_card_visa, pm_card_chargeDeclined or pm_card_authenticationRequired)"})
	}
	var out *Card
	err := p.store.InTx(ctx, func(tx SandboxTx) error {
		if !wellFormedToken(setupIntentID) {
			return market.NotFound("setup intent")
		}
		si, err := tx.SandboxSetupIntent(ctx, setupIntentID)
		if err != nil {
			return err
		}
		if si.CustomerID != customerID {
			return market.NotFound("setup intent")
		}
		if si.Status == string(SetupSucceeded) {
			if si.ConfirmedWith != paymentMethod {
				return market.Errorf(market.CodeInvalidState, "this setup intent has already saved another card")
			}
			c, err := tx.SandboxCard(ctx, si.PaymentMethodID)
			if err != nil {
				return err
			}
			out = &c.Card
			return nil
		}
		now := p.clock.Now()
		c := &SandboxCard{Card: Card{ID: sandboxID("pm_sbx_"), Brand: tok.brand, Last4: tok.last4, ExpMonth: 12,
			ExpYear: now.Year() + 3}, CustomerID: customerID, Outcome: tok.outcome, CreatedAt: now}
		if err := tx.CreateSandboxCard(ctx, c); err != nil {
			return err
		}
		si.Status, si.PaymentMethodID, si.ConfirmedWith = string(SetupSucceeded), c.ID, paymentMethod
		if err := tx.UpdateSandboxSetupIntent(ctx, si); err != nil {
			return err
		}
		out = &c.Card
		return nil
	})
	return out, err
}

// DetachPaymentMethod removes a saved card from its customer. Detaching a
// detached card is fine; an unknown one is NOT_FOUND.
func (p *Sandbox) DetachPaymentMethod(ctx context.Context, paymentMethodID string) error {
	if !wellFormedToken(paymentMethodID) {
		return market.NotFound("payment method")
	}
	return p.store.InTx(ctx, func(tx SandboxTx) error { return tx.DetachSandboxCard(ctx, paymentMethodID) })
}

// checkCharge validates a charge request; hosted says it is for the hosted
// page (no card yet).
func checkCharge(req *ChargeRequest, hosted bool) error {
	req.Currency = strings.ToLower(strings.TrimSpace(req.Currency))
	if req.Currency == "" {
		req.Currency = "usd"
	}
	if req.IdempotencyKey == "" {
		req.IdempotencyKey = sandboxID("key_")
	}
	var c market.Check
	c.Require(validKey(req.IdempotencyKey), "idempotency_key", "must be 1 to 255 printable characters")
	c.Require(req.Amount >= 50 && req.Amount <= MaxAmount, "amount", "must be between 50 and 99999999 cents")
	c.Require(len(req.Currency) == 3 && strings.Trim(req.Currency, "abcdefghijklmnopqrstuvwxyz") == "", "currency",
		"must be a three-letter ISO currency code")
	if req.Token != "" {
		c.Require(!hosted && req.PaymentMethodID == "" && wellFormedToken(req.Token), "token", "must be a delegated payment token, without a payment method")
	} else {
		c.Require(hosted && req.CustomerID == "" || wellFormedToken(req.CustomerID), "customer_id", "must be a customer id")
		c.Require(hosted || wellFormedToken(req.PaymentMethodID), "payment_method_id", "must be a payment method id")
	}
	c.Require(printable(req.Description, 1000), "description", "must be at most 1000 printable characters")
	for k, v := range req.Metadata {
		c.Require(printable(k, 40) && k != "" && printable(v, 500), "metadata", "keys must be 1 to 40 and values at most 500 printable characters")
	}
	return c.Err()
}

// MaxAmount is the largest payment the processors take, in cents.
const MaxAmount = 99_999_999

func newSandboxPayment(req ChargeRequest, now time.Time) *SandboxPayment {
	id := sandboxID("pi_sbx_")
	return &SandboxPayment{Payment: Payment{ID: id, Status: PaymentRequiresMethod, Amount: req.Amount,
		ClientSecret: id + "_secret_" + newToken(), IdempotencyKey: req.IdempotencyKey, CreatedAt: now},
		CustomerID: req.CustomerID, PaymentMethodID: req.PaymentMethodID, Currency: req.Currency,
		Description: req.Description, Metadata: req.Metadata, UpdatedAt: now}
}

// apply sets the outcome of paying p with a card of outcome o.
func (p *SandboxPayment) apply(o CardOutcome) {
	p.FailureCode, p.FailureMessage = "", ""
	switch o {
	case OutcomeSucceed:
		p.Status = PaymentSucceeded
	case OutcomeDecline:
		p.Status, p.FailureCode, p.FailureMessage = PaymentFailed, "card_declined", "Your card was declined."
	case OutcomeInsufficientFunds:
		p.Status, p.FailureCode, p.FailureMessage = PaymentFailed, "insufficient_funds", "Your card has insufficient funds."
	case OutcomeAuthenticate:
		p.Status, p.FailureCode, p.FailureMessage = PaymentRequiresAction, "authentication_required",
			"The bank requires the card holder to authenticate this payment."
	}
}

// Charge makes an off-session payment with a saved card. The idempotency
// key is unique in the table: a key already used returns the stored
// payment, also when two calls race (the loser's insert does nothing and it
// reads the winner's payment).
func (p *Sandbox) Charge(ctx context.Context, req ChargeRequest) (*Payment, error) {
	if err := checkCharge(&req, false); err != nil {
		return nil, err
	}
	if req.Token != "" {
		return p.insertPayment(ctx, req, func(tx SandboxTx, sp *SandboxPayment) error {
			return p.spendToken(ctx, tx, &req, sp)
		})
	}
	return p.insertPayment(ctx, req, func(tx SandboxTx, sp *SandboxPayment) error {
		card, err := tx.SandboxCard(ctx, req.PaymentMethodID)
		if market.CodeOf(err) == market.CodeNotFound {
			return market.Invalid(market.FieldError{Field: "payment_method_id", Message: "no such payment method"})
		}
		if err != nil {
			return err
		}
		if card.CustomerID == "" || card.CustomerID != req.CustomerID {
			return market.Invalid(market.FieldError{Field: "payment_method_id", Message: "is not attached to this customer"})
		}
		sp.apply(card.Outcome)
		return nil
	})
}

// StartPayment creates a payment for the hosted payment page.
func (p *Sandbox) StartPayment(ctx context.Context, req ChargeRequest) (*Payment, error) {
	req.PaymentMethodID = ""
	if err := checkCharge(&req, true); err != nil {
		return nil, err
	}
	return p.insertPayment(ctx, req, func(SandboxTx, *SandboxPayment) error { return nil })
}

// insertPayment returns the payment of req's idempotency key, or makes one
// (prepare sets its outcome) in one transaction.
func (p *Sandbox) insertPayment(ctx context.Context, req ChargeRequest, prepare func(SandboxTx, *SandboxPayment) error) (*Payment, error) {
	var out *Payment
	err := p.store.InTx(ctx, func(tx SandboxTx) error {
		existing, err := tx.SandboxPaymentByKey(ctx, req.IdempotencyKey)
		if err == nil {
			out = &existing.Payment
			return nil
		}
		if market.CodeOf(err) != market.CodeNotFound {
			return err
		}
		sp := newSandboxPayment(req, p.clock.Now())
		if err := prepare(tx, sp); err != nil {
			return err
		}
		added, err := tx.InsertSandboxPayment(ctx, sp)
		if err != nil {
			return err
		}
		if !added {
			if sp, err = tx.SandboxPaymentByKey(ctx, req.IdempotencyKey); err != nil {
				return err
			}
		}
		out = &sp.Payment
		return nil
	})
	return out, err
}

// Payment reads a payment by id.
func (p *Sandbox) Payment(ctx context.Context, paymentID string) (*Payment, error) {
	sp, err := p.SandboxPayment(ctx, paymentID)
	if err != nil {
		return nil, err
	}
	return &sp.Payment, nil
}

// SandboxPayment reads a payment with its sandbox details (the hosted page
// shows the amount and description).
func (p *Sandbox) SandboxPayment(ctx context.Context, paymentID string) (*SandboxPayment, error) {
	if !wellFormedToken(paymentID) {
		return nil, market.NotFound("payment")
	}
	return p.store.Read().SandboxPayment(ctx, paymentID)
}

// PaymentByKey finds the payment made under an idempotency key.
func (p *Sandbox) PaymentByKey(ctx context.Context, idempotencyKey string) (*Payment, error) {
	if !validKey(idempotencyKey) {
		return nil, market.NotFound("payment")
	}
	sp, err := p.store.Read().SandboxPaymentByKey(ctx, idempotencyKey)
	if err != nil {
		return nil, err
	}
	return &sp.Payment, nil
}

// PayWithCard pays a payment from the hosted page with a card number (see
// Sandbox for the test numbers). A payment that failed or needs action may
// be paid again; a succeeded or canceled one is INVALID_STATE.
func (p *Sandbox) PayWithCard(ctx context.Context, paymentID, cardNumber string) (*Payment, error) {
	outcome, ok := cardNumberOutcome(cardNumber)
	if !ok {
		return nil, market.Invalid(market.FieldError{Field: "card_number", Message: "is not a valid card number"})
	}
	if !wellFormedToken(paymentID) {
		return nil, market.NotFound("payment")
	}
	var out *Payment
	err := p.store.InTx(ctx, func(tx SandboxTx) error {
		sp, err := tx.SandboxPayment(ctx, paymentID)
		if err != nil {
			return err
		}
		if sp.Status == PaymentSucceeded || sp.Status == PaymentCanceled {
			return market.Errorf(market.CodeInvalidState, "this payment is %s", sp.Status).
				WithDetails(map[string]any{"status": string(sp.Status)})
		}
		sp.apply(outcome)
		sp.UpdatedAt = p.clock.Now()
		if err := tx.UpdateSandboxPayment(ctx, sp); err != nil {
			return err
		}
		out = &sp.Payment
		return nil
	})
	return out, err
}

// cardNumberOutcome checks a card number (spaces and dashes allowed) and
// tells what paying with it does.
func cardNumberOutcome(number string) (CardOutcome, bool) {
	digits := strings.NewReplacer(" ", "", "-", "").Replace(number)
	if len(digits) < 12 || len(digits) > 19 || strings.Trim(digits, "0123456789") != "" || !luhn(digits) {
		return "", false
	}
	switch digits {
	case "4000000000000002":
		return OutcomeDecline, true
	case "4000000000009995":
		return OutcomeInsufficientFunds, true
	case "4000002500003155":
		return OutcomeAuthenticate, true
	}
	return OutcomeSucceed, true
}

func luhn(digits string) bool {
	sum := 0
	double := false
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// CancelPayment cancels a payment that has not succeeded.
func (p *Sandbox) CancelPayment(ctx context.Context, paymentID string) error {
	if !wellFormedToken(paymentID) {
		return market.NotFound("payment")
	}
	return p.store.InTx(ctx, func(tx SandboxTx) error {
		sp, err := tx.SandboxPayment(ctx, paymentID)
		if err != nil {
			return err
		}
		switch sp.Status {
		case PaymentCanceled:
			return nil
		case PaymentSucceeded:
			return market.Errorf(market.CodeInvalidState, "a succeeded payment cannot be canceled; refund it")
		}
		sp.Status, sp.UpdatedAt = PaymentCanceled, p.clock.Now()
		return tx.UpdateSandboxPayment(ctx, sp)
	})
}

// Refund gives back part or all of a succeeded payment. A key already used returns its refund and refunds nothing
// more. The payment's row lock (PostgreSQL) or the one writer (SQLite)
// keeps concurrent refunds from passing the amount together.
func (p *Sandbox) Refund(ctx context.Context, req RefundRequest) (*Refund, error) {
	if req.IdempotencyKey == "" {
		req.IdempotencyKey = sandboxID("key_")
	}
	var c market.Check
	c.Require(validKey(req.IdempotencyKey), "idempotency_key", "must be 1 to 255 printable characters")
	c.Require(req.Amount > 0, "amount", "must be positive")
	c.Require(printable(req.Reason, 500), "reason", "must be at most 500 printable characters")
	if err := c.Err(); err != nil {
		return nil, err
	}
	if !wellFormedToken(req.PaymentID) {
		return nil, market.NotFound("payment")
	}
	var out *Refund
	err := p.store.InTx(ctx, func(tx SandboxTx) error {
		sp, err := tx.SandboxPayment(ctx, req.PaymentID)
		if err != nil {
			return err
		}
		if r, err := tx.SandboxRefundByKey(ctx, req.IdempotencyKey); err == nil {
			if r.PaymentID != req.PaymentID {
				return market.Errorf(market.CodeInvalidState, "this idempotency key was used for a refund of another payment")
			}
			out = &r.Refund
			return nil
		} else if market.CodeOf(err) != market.CodeNotFound {
			return err
		}
		if sp.Status != PaymentSucceeded {
			return market.Errorf(market.CodeInvalidState, "only a succeeded payment can be refunded (this one is %s)", sp.Status)
		}
		left := sp.Amount - sp.AmountRefunded
		if left == 0 {
			return market.Errorf(market.CodeInvalidState, "this payment is fully refunded")
		}
		amount := req.Amount
		if amount > left {
			return market.Invalid(market.FieldError{Field: "amount", Message: "is more than the refundable amount"})
		}
		now := p.clock.Now()
		r := &SandboxRefund{Refund: Refund{ID: sandboxID("re_sbx_"), PaymentID: sp.ID, Amount: amount, Status: "succeeded"},
			IdempotencyKey: req.IdempotencyKey, Reason: req.Reason, CreatedAt: now}
		added, err := tx.InsertSandboxRefund(ctx, r)
		if err != nil {
			return err
		}
		if !added {
			if r, err = tx.SandboxRefundByKey(ctx, req.IdempotencyKey); err != nil {
				return err
			}
			out = &r.Refund
			return nil
		}
		sp.AmountRefunded, sp.UpdatedAt = sp.AmountRefunded+amount, now
		if err := tx.UpdateSandboxPayment(ctx, sp); err != nil {
			return err
		}
		out = &r.Refund
		return nil
	})
	return out, err
}

// Transfer pays a payout account. A key already used returns its transfer.
func (p *Sandbox) Transfer(ctx context.Context, req TransferRequest) (*Transfer, error) {
	if req.IdempotencyKey == "" {
		req.IdempotencyKey = sandboxID("key_")
	}
	var c market.Check
	c.Require(validKey(req.IdempotencyKey), "idempotency_key", "must be 1 to 255 printable characters")
	c.Require(req.Amount > 0 && req.Amount <= MaxAmount, "amount", "must be between 1 and 99999999 cents")
	if err := c.Err(); err != nil {
		return nil, err
	}
	if !wellFormedToken(req.Destination) {
		return nil, market.NotFound("payout account")
	}
	var out *Transfer
	err := p.store.InTx(ctx, func(tx SandboxTx) error {
		if t, err := tx.SandboxTransferByKey(ctx, req.IdempotencyKey); err == nil {
			out = &t.Transfer
			return nil
		} else if market.CodeOf(err) != market.CodeNotFound {
			return err
		}
		t := &SandboxTransfer{Transfer: Transfer{ID: sandboxID("tr_sbx_"), Destination: req.Destination, Amount: req.Amount},
			IdempotencyKey: req.IdempotencyKey, Metadata: req.Metadata, CreatedAt: p.clock.Now()}
		added, err := tx.InsertSandboxTransfer(ctx, t)
		if err != nil {
			return err
		}
		if !added {
			if t, err = tx.SandboxTransferByKey(ctx, req.IdempotencyKey); err != nil {
				return err
			}
		}
		out = &t.Transfer
		return nil
	})
	return out, err
}

// ReverseTransfer takes back part or all of a transfer. A key already used
// returns its reversal and reverses nothing more; the transfer's row lock
// (PostgreSQL) or the one writer (SQLite) keeps concurrent reversals from
// passing the transfer's amount together.
func (p *Sandbox) ReverseTransfer(ctx context.Context, req TransferReversalRequest) (*TransferReversal, error) {
	if req.IdempotencyKey == "" {
		req.IdempotencyKey = sandboxID("key_")
	}
	var c market.Check
	c.Require(validKey(req.IdempotencyKey), "idempotency_key", "must be 1 to 255 printable characters")
	c.Require(req.Amount > 0 && req.Amount <= MaxAmount, "amount", "must be between 1 and 99999999 cents")
	if err := c.Err(); err != nil {
		return nil, err
	}
	if !wellFormedToken(req.TransferID) {
		return nil, market.NotFound("transfer")
	}
	var out *TransferReversal
	err := p.store.InTx(ctx, func(tx SandboxTx) error {
		t, err := tx.SandboxTransfer(ctx, req.TransferID)
		if err != nil {
			return err
		}
		if r, err := tx.SandboxReversalByKey(ctx, req.IdempotencyKey); err == nil {
			if r.TransferID != req.TransferID {
				return market.Errorf(market.CodeInvalidState, "this idempotency key was used for a reversal of another transfer")
			}
			out = &r.TransferReversal
			return nil
		} else if market.CodeOf(err) != market.CodeNotFound {
			return err
		}
		if req.Amount > t.Amount-t.Reversed {
			return market.Invalid(market.FieldError{Field: "amount", Message: "is more than what is left of the transfer"})
		}
		r := &SandboxReversal{TransferReversal: TransferReversal{ID: sandboxID("trr_sbx_"), TransferID: t.ID, Amount: req.Amount},
			IdempotencyKey: req.IdempotencyKey, CreatedAt: p.clock.Now()}
		added, err := tx.AddSandboxReversal(ctx, r)
		if err != nil {
			return err
		}
		if !added {
			if r, err = tx.SandboxReversalByKey(ctx, req.IdempotencyKey); err != nil {
				return err
			}
		}
		out = &r.TransferReversal
		return nil
	})
	return out, err
}

// validKey reports whether an idempotency key can be stored and looked up.
func validKey(s string) bool { return s != "" && printable(s, 255) }

// printable reports whether s is at most max bytes of UTF-8 without control
// characters (PostgreSQL refuses NUL bytes in text).
func printable(s string, max int) bool {
	if len(s) > max || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

func sandboxID(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}
