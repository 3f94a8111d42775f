package payments

import (
	"context"
	"time"

	"marketplace/internal/accounts"
)

// Gateway is the money side of the processor seam: customers, saved cards,
// payments, refunds and transfers. The sandbox processor and the Stripe
// processor both implement it (and Processor, the payout-account side).
//
// Declines are answers, not errors: a charge the bank refused comes back as
// a Payment with status failed (or requires_action for SCA) and a nil error.
// A non-nil error means the processor could not be asked or did not answer,
// so the outcome is unknown; callers then look the payment up by its
// idempotency key.
type Gateway interface {
	Name() string
	// CreateCustomer makes the processor's customer record for a user.
	CreateCustomer(ctx context.Context, u *accounts.User) (customerID string, err error)
	// CreateSetupIntent starts saving a card for a customer.
	CreateSetupIntent(ctx context.Context, customerID string) (*SetupIntent, error)
	// ConfirmSetup completes a setup intent with a payment method (the
	// processor's id from its hosted form, or a sandbox test token) and
	// returns the saved card. A card the processor refuses is a
	// VALIDATION_ERROR on field paymentMethod.
	ConfirmSetup(ctx context.Context, setupIntentID, customerID, paymentMethod string) (*Card, error)
	// DetachPaymentMethod removes a saved card from its customer.
	DetachPaymentMethod(ctx context.Context, paymentMethodID string) error
	// Charge makes an off-session payment with a saved card and confirms it
	// at once. Sent twice with the same IdempotencyKey, the second call
	// returns the first payment and charges nothing.
	Charge(ctx context.Context, req ChargeRequest) (*Payment, error)
	// StartPayment creates a payment that a human completes on the hosted
	// payment page (status requires_payment_method until then).
	StartPayment(ctx context.Context, req ChargeRequest) (*Payment, error)
	// Payment reads a payment by the processor's id.
	Payment(ctx context.Context, paymentID string) (*Payment, error)
	// PaymentByKey finds the payment made under an idempotency key, or
	// NOT_FOUND when none was made (the reconciler's question after a crash).
	PaymentByKey(ctx context.Context, idempotencyKey string) (*Payment, error)
	// CancelPayment cancels a payment that has not succeeded, so it can no
	// longer be paid (an expired reservation). Cancelling twice is fine.
	CancelPayment(ctx context.Context, paymentID string) error
	// Refund gives back part or all of a succeeded payment.
	Refund(ctx context.Context, req RefundRequest) (*Refund, error)
	// Transfer pays a connected (payout) account.
	Transfer(ctx context.Context, req TransferRequest) (*Transfer, error)
	// ReverseTransfer takes back part or all of a transfer (a refund after
	// the seller was paid). Sent twice with the same IdempotencyKey, the
	// second call returns the first reversal and reverses nothing more.
	ReverseTransfer(ctx context.Context, req TransferReversalRequest) (*TransferReversal, error)
}

// SetupIntent is a pending card save.
type SetupIntent struct {
	ID           string
	ClientSecret string
	CustomerID   string
	Status       string // requires_payment_method, succeeded
}

// Card is a saved payment method as the processor describes it.
type Card struct {
	ID       string // the processor's payment method id
	Brand    string // visa, mastercard, amex, ...
	Last4    string
	ExpMonth int
	ExpYear  int
}

// PaymentStatus follows the processor's payment intent states.
type PaymentStatus string

const (
	PaymentRequiresMethod PaymentStatus = "requires_payment_method"
	PaymentRequiresAction PaymentStatus = "requires_action" // SCA: the bank wants the human
	PaymentProcessing     PaymentStatus = "processing"
	PaymentSucceeded      PaymentStatus = "succeeded"
	PaymentFailed         PaymentStatus = "failed"
	PaymentCanceled       PaymentStatus = "canceled"
)

// ChargeRequest asks for a payment. Amount is in cents.
type ChargeRequest struct {
	IdempotencyKey  string // the order id
	CustomerID      string
	PaymentMethodID string // the processor's id; empty for StartPayment
	// Token, when set, is charged instead of a saved card: a card
	// delegated to the processor (ACP's delegate_payment: vt_... in
	// sandbox, a Stripe shared payment token spt_...). The processor
	// checks the token's allowance; a token it refuses is a failed
	// payment, not an error.
	Token       string
	Amount      int64
	Currency    string // "usd"
	Description string
	Metadata    map[string]string // order_id, listing_id, buyer_id
}

// Payment is one payment (a payment intent).
type Payment struct {
	ID             string
	Status         PaymentStatus
	Amount         int64
	AmountRefunded int64
	ClientSecret   string // for the hosted page / Stripe Elements
	FailureCode    string // card_declined, authentication_required, ...
	FailureMessage string
	IdempotencyKey string
	CreatedAt      time.Time
}

// RefundRequest gives back Amount cents of a payment.
type RefundRequest struct {
	PaymentID      string
	Amount         int64
	IdempotencyKey string
	Reason         string
}

// Refund is a processed refund.
type Refund struct {
	ID        string
	PaymentID string
	Amount    int64
	Status    string // succeeded, pending, failed
}

// TransferRequest pays Amount cents to a payout account.
type TransferRequest struct {
	Destination    string // the processor's account id (PayoutAccount.ExternalID)
	Amount         int64
	IdempotencyKey string
	Metadata       map[string]string
}

// Transfer is a processed transfer.
type Transfer struct {
	ID          string
	Destination string
	Amount      int64
	Reversed    int64
}

// TransferReversalRequest takes Amount cents back from a transfer.
type TransferReversalRequest struct {
	TransferID     string
	Amount         int64
	IdempotencyKey string
}

// TransferReversal is a processed transfer reversal.
type TransferReversal struct {
	ID         string
	TransferID string
	Amount     int64
}

// PaymentEvents is told what the processor reports asynchronously (Stripe's
// webhooks). The orders area implements it.
type PaymentEvents interface {
	// PaymentUpdated reports a payment's new state (payment_intent.*).
	PaymentUpdated(ctx context.Context, p *Payment) error
	// PaymentRefunded reports refunds made on a payment (charge.refunded).
	PaymentRefunded(ctx context.Context, paymentID string, amountRefunded int64) error
}
