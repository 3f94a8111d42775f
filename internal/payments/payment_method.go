package payments

import "time"

// PaymentMethod is a card an owner saved for purchases (their agents charge
// it off-session).
type PaymentMethod struct {
	ID         string // ours ("pm" prefix-free uuid)
	UserID     string
	Processor  string // sandbox or stripe
	ExternalID string // the processor's payment method id
	Brand      string
	Last4      string
	ExpMonth   int
	ExpYear    int
	IsDefault  bool
	CreatedAt  time.Time
}

// SetupStatus is where one of our setup intents stands.
type SetupStatus string

const (
	SetupPending   SetupStatus = "requires_payment_method"
	SetupSucceeded SetupStatus = "succeeded"
)

// SetupRecord is our record of a setup intent a user started, so that only
// that user can confirm it and a repeated confirm finds the card it saved.
type SetupRecord struct {
	ID           string // the processor's setup intent id
	UserID       string
	Processor    string
	ClientSecret string
	Status       SetupStatus
	// Set once confirmed: what the caller sent as paymentMethod, and our id
	// of the card it saved.
	ConfirmedWith   string
	PaymentMethodID string
	CreatedAt       time.Time
}
