package payments

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v85"

	"marketplace/internal/accounts"
	"marketplace/internal/market"
)

// StripeOptions configure the Stripe processor.
type StripeOptions struct {
	SecretKey string
	// APIBase replaces Stripe's API address (stripe-mock in tests); "" is
	// Stripe itself.
	APIBase string
	// PublicURL is the service's base; onboarding links send the owner back
	// there when they finish or when the link has expired.
	PublicURL string
	// HTTPClient makes the calls; nil is a client with a 30 s timeout.
	HTTPClient *http.Client
}

// Stripe is the processor of MARKETPLACE_PAYMENTS=stripe: customers, saved
// cards (SetupIntents), off-session and hosted payments (PaymentIntents),
// refunds, and Connect Express accounts paid by transfers.
//
// Every money-moving call carries an idempotency key derived from the
// caller's (so a retried call never moves money twice), and every payment
// keeps the caller's key in its metadata, where PaymentByKey finds it.
type Stripe struct {
	sc         *stripe.Client
	returnURL  string
	refreshURL string
}

var (
	_ Gateway         = (*Stripe)(nil)
	_ Processor       = (*Stripe)(nil)
	_ DashboardLinker = (*Stripe)(nil)
)

// NewStripe builds the Stripe processor.
func NewStripe(o StripeOptions) (*Stripe, error) {
	if strings.TrimSpace(o.SecretKey) == "" {
		return nil, errors.New("stripe: no secret key")
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	cfg := &stripe.BackendConfig{
		HTTPClient: hc,
		// Failures come back as errors and are reported by the caller; the
		// library's own logging would print card declines to stderr.
		LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelNull},
	}
	if o.APIBase != "" {
		cfg.URL = stripe.String(strings.TrimRight(o.APIBase, "/"))
	}
	base := strings.TrimRight(o.PublicURL, "/")
	return &Stripe{
		sc:         stripe.NewClient(o.SecretKey, stripe.WithBackends(stripe.NewBackendsWithConfig(cfg))),
		returnURL:  base + "/?stripe_onboarding=return",
		refreshURL: base + "/?stripe_onboarding=refresh",
	}, nil
}

// Name identifies the processor.
func (*Stripe) Name() string { return "stripe" }

// idempotencyMeta is the metadata key that keeps the caller's idempotency
// key on a payment.
const idempotencyMeta = "idempotency_key"

// Stripe keeps an idempotency key per account, across endpoints: each
// operation gets its own prefix so that one caller key used for, say, a
// payment and its refund never collides.
func stripeKey(op, key string) string { return "marketplace-" + op + "-" + key }

// digest stands for a request's parameters in an idempotency key: Stripe
// refuses a key reused with other parameters, and a user may change, say,
// their e-mail between a lost answer and the retry.
func digest(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:12])
}

// CreateCustomer makes the Stripe customer of a user.
func (s *Stripe) CreateCustomer(ctx context.Context, u *accounts.User) (string, error) {
	params := &stripe.CustomerCreateParams{
		Email:    stripe.String(u.Email),
		Metadata: map[string]string{"user_id": u.ID},
	}
	if u.DisplayName != "" {
		params.Name = stripe.String(u.DisplayName)
	}
	// One customer per user even when a first attempt's answer was lost.
	params.SetIdempotencyKey(stripeKey("customer", u.ID+"-"+digest(u.Email, u.DisplayName)))
	c, err := s.sc.V1Customers.Create(ctx, params)
	if err != nil {
		return "", stripeFailure("create customer", err, "")
	}
	return c.ID, nil
}

// CreateSetupIntent starts saving a card for later off-session charges.
func (s *Stripe) CreateSetupIntent(ctx context.Context, customerID string) (*SetupIntent, error) {
	si, err := s.sc.V1SetupIntents.Create(ctx, &stripe.SetupIntentCreateParams{
		Customer:           stripe.String(customerID),
		Usage:              stripe.String(string(stripe.SetupIntentUsageOffSession)),
		PaymentMethodTypes: []*string{stripe.String("card")},
	})
	if err != nil {
		return nil, stripeFailure("create setup intent", err, "")
	}
	return setupIntentOf(si, customerID), nil
}

func setupIntentOf(si *stripe.SetupIntent, customerID string) *SetupIntent {
	out := &SetupIntent{ID: si.ID, ClientSecret: si.ClientSecret, CustomerID: customerID, Status: string(si.Status)}
	if si.Customer != nil && si.Customer.ID != "" {
		out.CustomerID = si.Customer.ID
	}
	return out
}

// ConfirmSetup confirms a setup intent with a payment method and returns
// the saved card. A setup intent the hosted form has already confirmed with
// the same payment method is accepted as it is.
func (s *Stripe) ConfirmSetup(ctx context.Context, setupIntentID, customerID, paymentMethod string) (*Card, error) {
	if !stripeID(paymentMethod) {
		return nil, market.Invalid(market.FieldError{Field: "payment_method", Message: "must be a payment method id from the payment form"})
	}
	if !stripeID(setupIntentID) {
		return nil, market.NotFound("setup intent")
	}
	si, err := s.sc.V1SetupIntents.Confirm(ctx, setupIntentID, &stripe.SetupIntentConfirmParams{
		PaymentMethod: stripe.String(paymentMethod),
	})
	if err != nil {
		var se *stripe.Error
		if errors.As(err, &se) && se.Code == stripe.ErrorCodeSetupIntentUnexpectedState {
			// Already confirmed (by Stripe Elements on the hosted form)?
			si, err = s.sc.V1SetupIntents.Retrieve(ctx, setupIntentID, nil)
			if err != nil {
				return nil, stripeFailure("read setup intent", err, "setup intent")
			}
			if si.Status != stripe.SetupIntentStatusSucceeded || si.PaymentMethod == nil || si.PaymentMethod.ID != paymentMethod {
				return nil, market.Errorf(market.CodeInvalidState, "the card setup is %s; start a new one", si.Status)
			}
		} else if refused := cardRefusal(err); refused != "" {
			return nil, market.Invalid(market.FieldError{Field: "payment_method", Message: refused})
		} else {
			return nil, stripeFailure("confirm setup intent", err, "setup intent")
		}
	}
	if si.Customer != nil && si.Customer.ID != "" && customerID != "" && si.Customer.ID != customerID {
		return nil, market.NotFound("setup intent")
	}
	switch {
	case si.Status == stripe.SetupIntentStatusRequiresAction:
		return nil, market.Invalid(market.FieldError{Field: "payment_method",
			Message: "the bank wants the card holder to authenticate; complete the payment form"})
	case si.Status == stripe.SetupIntentStatusCanceled:
		return nil, market.Errorf(market.CodeInvalidState, "the card setup was cancelled; start a new one")
	case failedAttempt(si.LastSetupError):
		return nil, market.Invalid(market.FieldError{Field: "payment_method", Message: refusalMessage(si.LastSetupError)})
	}
	pmID := paymentMethod
	if si.PaymentMethod != nil && si.PaymentMethod.ID != "" {
		pmID = si.PaymentMethod.ID
	}
	pm, err := s.sc.V1PaymentMethods.Retrieve(ctx, pmID, nil)
	if err != nil {
		return nil, stripeFailure("read payment method", err, "payment method")
	}
	if pm.Card == nil {
		return nil, market.Invalid(market.FieldError{Field: "payment_method", Message: "must be a card"})
	}
	return &Card{ID: pm.ID, Brand: string(pm.Card.Brand), Last4: pm.Card.Last4,
		ExpMonth: int(pm.Card.ExpMonth), ExpYear: int(pm.Card.ExpYear)}, nil
}

// DetachPaymentMethod removes a saved card from its customer. A card that
// is no longer attached is already removed.
func (s *Stripe) DetachPaymentMethod(ctx context.Context, paymentMethodID string) error {
	if !stripeID(paymentMethodID) {
		return market.NotFound("payment method")
	}
	_, err := s.sc.V1PaymentMethods.Detach(ctx, paymentMethodID, &stripe.PaymentMethodDetachParams{})
	if err == nil {
		return nil
	}
	var se *stripe.Error
	if errors.As(err, &se) && se.Type == stripe.ErrorTypeInvalidRequest && se.HTTPStatusCode == http.StatusBadRequest {
		pm, rerr := s.sc.V1PaymentMethods.Retrieve(ctx, paymentMethodID, nil)
		if rerr == nil && pm.Customer == nil {
			return nil
		}
	}
	return stripeFailure("detach payment method", err, "payment method")
}

// Charge makes an off-session payment with a saved card, confirmed at once.
// Declines come back as a failed (or, when the bank wants the card holder,
// requires_action) payment and a nil error.
func (s *Stripe) Charge(ctx context.Context, req ChargeRequest) (*Payment, error) {
	// Without the caller's key a lost answer could not be looked up, and a
	// retry would charge again.
	if req.IdempotencyKey == "" {
		return nil, market.Internal(errors.New("stripe: a charge needs an idempotency key"))
	}
	if err := checkCharge(&req, false); err != nil {
		return nil, err
	}
	params := &stripe.PaymentIntentCreateParams{
		Amount:             stripe.Int64(req.Amount),
		Currency:           stripe.String(req.Currency),
		Customer:           stripe.String(req.CustomerID),
		PaymentMethod:      stripe.String(req.PaymentMethodID),
		PaymentMethodTypes: []*string{stripe.String("card")},
		Confirm:            stripe.Bool(true),
		OffSession:         stripe.Bool(true),
		Metadata:           metadataOf(req.Metadata, req.IdempotencyKey),
	}
	if req.Token != "" {
		// A shared payment token an agent platform was granted for this
		// merchant: Stripe holds the card and enforces the token's usage
		// limits. The parameter is newer than this stripe-go.
		params.Customer, params.PaymentMethod, params.OffSession = nil, nil, nil
		params.AddExtra("shared_payment_granted_token", req.Token)
	}
	if req.Description != "" {
		params.Description = stripe.String(req.Description)
	}
	params.SetIdempotencyKey(stripeKey("charge", req.IdempotencyKey))
	pi, err := s.sc.V1PaymentIntents.Create(ctx, params)
	if err != nil {
		if p := declined(err, req); p != nil {
			return p, nil
		}
		if refused := cardRefusal(err); refused != "" {
			return nil, market.Invalid(market.FieldError{Field: "payment_method_id", Message: refused})
		}
		return nil, stripeFailure("charge", err, "")
	}
	return paymentOf(pi), nil
}

// declined reads a card error as the payment it left behind: failed, or
// requires_action when the bank wants the card holder to authenticate.
// Anything else is not a decline (nil).
func declined(err error, req ChargeRequest) *Payment {
	var se *stripe.Error
	if !errors.As(err, &se) || se.Type != stripe.ErrorTypeCard {
		return nil
	}
	p := &Payment{Status: PaymentFailed, Amount: req.Amount, IdempotencyKey: req.IdempotencyKey,
		FailureCode: failureCode(se), FailureMessage: se.Msg}
	if p.FailureCode == string(stripe.ErrorCodeAuthenticationRequired) {
		p.Status = PaymentRequiresAction
	}
	if pi := se.PaymentIntent; pi != nil {
		p.ID, p.ClientSecret, p.CreatedAt = pi.ID, pi.ClientSecret, unixTime(pi.Created)
	}
	return p
}

// StartPayment creates a payment the buyer completes with Stripe Elements
// on the hosted page; its client secret goes to that page.
func (s *Stripe) StartPayment(ctx context.Context, req ChargeRequest) (*Payment, error) {
	req.PaymentMethodID = ""
	if err := checkCharge(&req, true); err != nil { // gives a key when there is none
		return nil, err
	}
	params := &stripe.PaymentIntentCreateParams{
		Amount:             stripe.Int64(req.Amount),
		Currency:           stripe.String(req.Currency),
		PaymentMethodTypes: []*string{stripe.String("card")},
		Metadata:           metadataOf(req.Metadata, req.IdempotencyKey),
	}
	if req.CustomerID != "" {
		params.Customer = stripe.String(req.CustomerID)
	}
	if req.Description != "" {
		params.Description = stripe.String(req.Description)
	}
	params.SetIdempotencyKey(stripeKey("payment", req.IdempotencyKey))
	pi, err := s.sc.V1PaymentIntents.Create(ctx, params)
	if err != nil {
		return nil, stripeFailure("start payment", err, "")
	}
	return paymentOf(pi), nil
}

// Payment reads a payment, with what has been refunded of it.
func (s *Stripe) Payment(ctx context.Context, paymentID string) (*Payment, error) {
	if !stripeID(paymentID) {
		return nil, market.NotFound("payment")
	}
	params := &stripe.PaymentIntentRetrieveParams{}
	params.AddExpand("latest_charge")
	pi, err := s.sc.V1PaymentIntents.Retrieve(ctx, paymentID, params)
	if err != nil {
		return nil, stripeFailure("read payment", err, "payment")
	}
	return paymentOf(pi), nil
}

// PaymentByKey finds the payment made under a caller's idempotency key by
// searching payment metadata. Stripe's search index trails writes (under
// a minute normally), so it answers the reconciler, which asks about
// payments minutes old, and not a read right after a create.
func (s *Stripe) PaymentByKey(ctx context.Context, idempotencyKey string) (*Payment, error) {
	if !validKey(idempotencyKey) {
		return nil, market.NotFound("payment")
	}
	params := &stripe.PaymentIntentSearchParams{}
	params.Query = fmt.Sprintf("metadata['%s']:'%s'", idempotencyMeta, searchQuote(idempotencyKey))
	params.Limit = stripe.Int64(10)
	params.Single = true
	params.AddExpand("data.latest_charge")
	list := s.sc.V1PaymentIntents.Search(ctx, params)
	if err := list.Err(); err != nil {
		return nil, stripeFailure("search payments", err, "payment")
	}
	// A succeeded payment is the answer; otherwise the newest attempt.
	better := func(a, b *stripe.PaymentIntent) bool {
		if as, bs := a.Status == stripe.PaymentIntentStatusSucceeded, b.Status == stripe.PaymentIntentStatusSucceeded; as != bs {
			return as
		}
		return a.Created > b.Created
	}
	var best *stripe.PaymentIntent
	for _, pi := range list.Data() {
		if best == nil || better(pi, best) {
			best = pi
		}
	}
	if best == nil {
		return nil, market.NotFound("payment")
	}
	return paymentOf(best), nil
}

// searchQuote escapes a value for a quoted string of Stripe's search query
// language.
func searchQuote(v string) string {
	return strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v)
}

// CancelPayment cancels a payment that has not succeeded. A payment that is
// already cancelled is fine; one that succeeded is INVALID_STATE.
func (s *Stripe) CancelPayment(ctx context.Context, paymentID string) error {
	if !stripeID(paymentID) {
		return market.NotFound("payment")
	}
	_, err := s.sc.V1PaymentIntents.Cancel(ctx, paymentID, &stripe.PaymentIntentCancelParams{
		CancellationReason: stripe.String(string(stripe.PaymentIntentCancellationReasonAbandoned)),
	})
	if err == nil {
		return nil
	}
	var se *stripe.Error
	if errors.As(err, &se) && se.Code == stripe.ErrorCodePaymentIntentUnexpectedState {
		pi, rerr := s.sc.V1PaymentIntents.Retrieve(ctx, paymentID, nil)
		if rerr != nil {
			return stripeFailure("read payment", rerr, "payment")
		}
		switch pi.Status {
		case stripe.PaymentIntentStatusCanceled:
			return nil
		case stripe.PaymentIntentStatusSucceeded, stripe.PaymentIntentStatusProcessing:
			return market.Errorf(market.CodeInvalidState, "the payment is %s and can no longer be cancelled", pi.Status)
		}
	}
	return stripeFailure("cancel payment", err, "payment")
}

// refundReasons are the reasons Stripe takes; others go to metadata.
var refundReasons = map[string]bool{"duplicate": true, "fraudulent": true, "requested_by_customer": true}

// Refund gives back part or all of a succeeded payment.
func (s *Stripe) Refund(ctx context.Context, req RefundRequest) (*Refund, error) {
	var c market.Check
	c.Require(req.IdempotencyKey == "" || validKey(req.IdempotencyKey), "idempotency_key", "must be 1 to 255 printable characters")
	c.Require(req.Amount > 0, "amount", "must be positive")
	c.Require(printable(req.Reason, 500), "reason", "must be at most 500 printable characters")
	if err := c.Err(); err != nil {
		return nil, err
	}
	if !stripeID(req.PaymentID) {
		return nil, market.NotFound("payment")
	}
	params := &stripe.RefundCreateParams{
		PaymentIntent: stripe.String(req.PaymentID),
		Amount:        stripe.Int64(req.Amount),
		Metadata:      map[string]string{},
	}
	if refundReasons[req.Reason] {
		params.Reason = stripe.String(req.Reason)
	} else if req.Reason != "" {
		params.Metadata["reason"] = truncateMeta(req.Reason)
	}
	if req.IdempotencyKey != "" {
		params.Metadata[idempotencyMeta] = req.IdempotencyKey
		params.SetIdempotencyKey(stripeKey("refund", req.IdempotencyKey))
	}
	r, err := s.sc.V1Refunds.Create(ctx, params)
	if err != nil {
		var se *stripe.Error
		if errors.As(err, &se) {
			switch {
			case se.Code == stripe.ErrorCodeChargeAlreadyRefunded:
				return nil, market.Errorf(market.CodeInvalidState, "this payment is fully refunded")
			case se.Code == stripe.ErrorCodePaymentIntentUnexpectedState:
				return nil, market.Errorf(market.CodeInvalidState, "only a succeeded payment can be refunded")
			case se.Type == stripe.ErrorTypeInvalidRequest && se.Param == "amount":
				return nil, market.Invalid(market.FieldError{Field: "amount", Message: "is more than the refundable amount"})
			}
		}
		return nil, stripeFailure("refund", err, "payment")
	}
	out := &Refund{ID: r.ID, PaymentID: req.PaymentID, Amount: r.Amount, Status: string(r.Status)}
	if r.PaymentIntent != nil && r.PaymentIntent.ID != "" {
		out.PaymentID = r.PaymentIntent.ID
	}
	return out, nil
}

// Transfer pays a connected account from the platform's balance.
func (s *Stripe) Transfer(ctx context.Context, req TransferRequest) (*Transfer, error) {
	var c market.Check
	c.Require(req.IdempotencyKey == "" || validKey(req.IdempotencyKey), "idempotency_key", "must be 1 to 255 printable characters")
	c.Require(req.Amount > 0 && req.Amount <= MaxAmount, "amount", "must be between 1 and 99999999 cents")
	if err := c.Err(); err != nil {
		return nil, err
	}
	if !stripeID(req.Destination) {
		return nil, market.NotFound("payout account")
	}
	params := &stripe.TransferCreateParams{
		Amount:      stripe.Int64(req.Amount),
		Currency:    stripe.String("usd"),
		Destination: stripe.String(req.Destination),
		Metadata:    metadataOf(req.Metadata, req.IdempotencyKey),
	}
	if req.IdempotencyKey != "" {
		params.SetIdempotencyKey(stripeKey("transfer", req.IdempotencyKey))
	}
	t, err := s.sc.V1Transfers.Create(ctx, params)
	if err != nil {
		return nil, stripeFailure("transfer", err, "payout account")
	}
	out := &Transfer{ID: t.ID, Destination: req.Destination, Amount: t.Amount, Reversed: t.AmountReversed}
	if t.Destination != nil && t.Destination.ID != "" {
		out.Destination = t.Destination.ID
	}
	return out, nil
}

// ReverseTransfer takes back part or all of a transfer from the connected
// account (POST /v1/transfers/{id}/reversals).
func (s *Stripe) ReverseTransfer(ctx context.Context, req TransferReversalRequest) (*TransferReversal, error) {
	var c market.Check
	c.Require(req.IdempotencyKey == "" || validKey(req.IdempotencyKey), "idempotency_key", "must be 1 to 255 printable characters")
	c.Require(req.Amount > 0 && req.Amount <= MaxAmount, "amount", "must be between 1 and 99999999 cents")
	if err := c.Err(); err != nil {
		return nil, err
	}
	if !stripeID(req.TransferID) {
		return nil, market.NotFound("transfer")
	}
	params := &stripe.TransferReversalCreateParams{
		ID:       stripe.String(req.TransferID),
		Amount:   stripe.Int64(req.Amount),
		Metadata: metadataOf(nil, req.IdempotencyKey),
	}
	if req.IdempotencyKey != "" {
		params.SetIdempotencyKey(stripeKey("reversal", req.IdempotencyKey))
	}
	r, err := s.sc.V1TransferReversals.Create(ctx, params)
	if err != nil {
		var se *stripe.Error
		if errors.As(err, &se) && se.Type == stripe.ErrorTypeInvalidRequest && se.Param == "amount" {
			return nil, market.Invalid(market.FieldError{Field: "amount", Message: "is more than what is left of the transfer"})
		}
		return nil, stripeFailure("reverse transfer", err, "transfer")
	}
	out := &TransferReversal{ID: r.ID, TransferID: req.TransferID, Amount: r.Amount}
	if r.Transfer != nil && r.Transfer.ID != "" {
		out.TransferID = r.Transfer.ID
	}
	return out, nil
}

// CreateAccount makes a Connect Express account for a seller. The user id
// in its metadata is how account.updated finds the payout account again.
func (s *Stripe) CreateAccount(ctx context.Context, u *accounts.User, country, businessType string) (string, error) {
	params := &stripe.AccountCreateParams{
		Type:         stripe.String(string(stripe.AccountTypeExpress)),
		Country:      stripe.String(country),
		Email:        stripe.String(u.Email),
		BusinessType: stripe.String(businessType),
		Capabilities: &stripe.AccountCreateCapabilitiesParams{
			CardPayments: &stripe.AccountCreateCapabilitiesCardPaymentsParams{Requested: stripe.Bool(true)},
			Transfers:    &stripe.AccountCreateCapabilitiesTransfersParams{Requested: stripe.Bool(true)},
		},
		Metadata: map[string]string{"user_id": u.ID},
	}
	// Connect runs this inside a transaction; if that rolls back after
	// Stripe answered, the retry gets the same account rather than a second.
	params.SetIdempotencyKey(stripeKey("account", u.ID+"-"+digest(u.Email, country, businessType)))
	a, err := s.sc.V1Accounts.Create(ctx, params)
	if err != nil {
		return "", stripeFailure("create account", err, "")
	}
	return a.ID, nil
}

// OnboardingURL is a fresh Stripe-hosted onboarding link for the account.
func (s *Stripe) OnboardingURL(ctx context.Context, a *PayoutAccount) (string, error) {
	link, err := s.sc.V1AccountLinks.Create(ctx, &stripe.AccountLinkCreateParams{
		Account:    stripe.String(a.ExternalID),
		Type:       stripe.String(string(stripe.AccountLinkTypeAccountOnboarding)),
		RefreshURL: stripe.String(s.refreshURL),
		ReturnURL:  stripe.String(s.returnURL),
	})
	if err != nil {
		return "", stripeFailure("create onboarding link", err, "payout account")
	}
	return link.URL, nil
}

// DashboardURL is a single-use login link to the seller's Stripe Express
// dashboard.
func (s *Stripe) DashboardURL(ctx context.Context, a *PayoutAccount) (string, error) {
	if !stripeID(a.ExternalID) {
		return "", market.NotFound("payout account")
	}
	link, err := s.sc.V1LoginLinks.Create(ctx, &stripe.LoginLinkCreateParams{Account: stripe.String(a.ExternalID)})
	if err != nil {
		return "", stripeFailure("create dashboard link", err, "payout account")
	}
	return link.URL, nil
}

// paymentOf maps a payment intent. requires_payment_method after a failed
// attempt (a decline recorded in last_payment_error) reads as failed;
// before any attempt it is still waiting for the buyer.
func paymentOf(pi *stripe.PaymentIntent) *Payment {
	p := &Payment{ID: pi.ID, Amount: pi.Amount, ClientSecret: pi.ClientSecret, IdempotencyKey: pi.Metadata[idempotencyMeta],
		CreatedAt: unixTime(pi.Created)}
	if pi.LatestCharge != nil {
		p.AmountRefunded = pi.LatestCharge.AmountRefunded
	}
	switch pi.Status {
	case stripe.PaymentIntentStatusSucceeded:
		p.Status = PaymentSucceeded
	case stripe.PaymentIntentStatusProcessing, stripe.PaymentIntentStatusRequiresCapture:
		p.Status = PaymentProcessing
	case stripe.PaymentIntentStatusRequiresAction:
		p.Status, p.FailureCode = PaymentRequiresAction, string(stripe.ErrorCodeAuthenticationRequired)
	case stripe.PaymentIntentStatusCanceled:
		p.Status = PaymentCanceled
	default: // requires_payment_method, requires_confirmation
		p.Status = PaymentRequiresMethod
		if failedAttempt(pi.LastPaymentError) {
			p.Status = PaymentFailed
		}
	}
	if e := pi.LastPaymentError; failedAttempt(e) && p.Status != PaymentSucceeded {
		p.FailureCode, p.FailureMessage = failureCode(e), e.Msg
	}
	return p
}

// failureCode is the code a refusal is reported with, as the sandbox
// reports its own: authentication_required, insufficient_funds, or
// Stripe's error code (card_declined, expired_card, incorrect_cvc, ...).
// Other decline codes stay behind card_declined: Stripe advises against
// telling buyers about lost, stolen or fraud-flagged cards.
func failureCode(e *stripe.Error) string {
	switch {
	case e.Code == stripe.ErrorCodeAuthenticationRequired || e.DeclineCode == "authentication_required":
		return string(stripe.ErrorCodeAuthenticationRequired)
	case e.DeclineCode == "insufficient_funds":
		return "insufficient_funds"
	case e.Code != "":
		return string(e.Code)
	}
	return string(stripe.ErrorCodeCardDeclined)
}

// failedAttempt reports whether a last_payment_error / last_setup_error
// records a real refusal (with a code or a message).
func failedAttempt(e *stripe.Error) bool {
	return e != nil && (e.Code != "" || e.DeclineCode != "" || e.Msg != "")
}

func refusalMessage(e *stripe.Error) string {
	if e.Msg != "" {
		return e.Msg
	}
	return "the card was refused (" + string(e.Code) + ")"
}

// cardRefusal is the message of an error that refuses the payment method
// itself (a card error, or an unknown or unusable payment method), or "".
func cardRefusal(err error) string {
	var se *stripe.Error
	if !errors.As(err, &se) {
		return ""
	}
	if se.Type == stripe.ErrorTypeCard || se.Type == stripe.ErrorTypeInvalidRequest && se.Param == "payment_method" {
		return refusalMessage(se)
	}
	return ""
}

// stripeFailure turns a failed call into the service's errors: an unknown
// object is NOT_FOUND (when what names it), Stripe not answering (network,
// timeouts, 429, 5xx) is SERVICE_UNAVAILABLE, and anything else (a bad key,
// a request Stripe rejects) is internal.
func stripeFailure(op string, err error, what string) error {
	var se *stripe.Error
	if !errors.As(err, &se) {
		return fmt.Errorf("stripe %s: %v: %w", op, err,
			market.Errorf(market.CodeUnavailable, "the payment processor did not answer; try again"))
	}
	switch {
	case what != "" && (se.Code == stripe.ErrorCodeResourceMissing || se.HTTPStatusCode == http.StatusNotFound):
		return market.NotFound(what)
	case se.HTTPStatusCode == http.StatusTooManyRequests || se.HTTPStatusCode >= 500 || se.Type == stripe.ErrorTypeAPI:
		return fmt.Errorf("stripe %s: %v: %w", op, se.Msg,
			market.Errorf(market.CodeUnavailable, "the payment processor is unavailable; try again"))
	}
	return market.Internal(fmt.Errorf("stripe %s: %w", op, err))
}

// stripeID reports whether s could be a Stripe object id (or test token),
// so that junk never reaches a request path.
func stripeID(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// metadataOf copies the caller's metadata and adds its idempotency key.
func metadataOf(m map[string]string, key string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = truncateMeta(v)
	}
	if key != "" {
		out[idempotencyMeta] = key
	}
	return out
}

// truncateMeta keeps a metadata value within Stripe's 500 characters.
func truncateMeta(v string) string {
	if len(v) <= 500 {
		return v
	}
	return strings.ToValidUTF8(v[:500], "")
}

func unixTime(sec int64) time.Time {
	if sec == 0 {
		return time.Time{}
	}
	return time.Unix(sec, 0).UTC()
}

// LookupLag is how far behind Stripe's search (PaymentByKey) may be: Stripe
// documents it as usually under a minute, up to an hour during outages.
func (s *Stripe) LookupLag() time.Duration { return time.Hour }
