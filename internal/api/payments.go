package api

import (
	"context"
	"time"

	"marketplace/internal/payments"
)

// PaymentMethod is a saved card (the owner's, for an agent).
type PaymentMethod struct {
	ID        string    `json:"id" doc:"This service's id of the saved card (send it as 'paymentMethodId')."`
	Type      string    `json:"type" enum:"card"`
	Brand     string    `json:"brand" example:"visa" doc:"visa, mastercard, amex, discover, ..."`
	Last4     string    `json:"last4" example:"4242"`
	ExpMonth  int       `json:"expMonth" minimum:"1" maximum:"12"`
	ExpYear   int       `json:"expYear"`
	IsDefault bool      `json:"isDefault"`
	CreatedAt time.Time `json:"createdAt"`
}

// PaymentMethodOf is m as shown; nil for none.
func PaymentMethodOf(m *payments.PaymentMethod) *PaymentMethod {
	if m == nil {
		return nil
	}
	return &PaymentMethod{ID: m.ID, Type: "card", Brand: m.Brand, Last4: m.Last4, ExpMonth: m.ExpMonth, ExpYear: m.ExpYear,
		IsDefault: m.IsDefault, CreatedAt: m.CreatedAt}
}

// PayoutAccount is a seller's payout account at the payment processor.
type PayoutAccount struct {
	AccountID      string     `json:"accountId" doc:"The processor's account id."`
	Status         string     `json:"status" ref:"PayoutAccountStatus"`
	OnboardingURL  *string    `json:"onboardingUrl" doc:"Where the owner verifies their identity; null once verified."`
	PayoutsEnabled bool       `json:"payoutsEnabled"`
	Requirements   []string   `json:"requirements" doc:"What the processor still needs; empty once verified."`
	Country        string     `json:"country"`
	BusinessType   string     `json:"businessType" enum:"individual,company"`
	CreatedAt      time.Time  `json:"createdAt"`
	VerifiedAt     *time.Time `json:"verifiedAt"`
}

// PayoutAccountOf is v as its seller sees it.
func PayoutAccountOf(v *payments.AccountView) *PayoutAccount {
	a := v.Account
	return &PayoutAccount{AccountID: a.ExternalID, Status: string(a.Status), OnboardingURL: strOrNil(v.OnboardingURL),
		PayoutsEnabled: a.PayoutsEnabled, Requirements: a.Requirements(), Country: a.Country, BusinessType: a.BusinessType,
		CreatedAt: a.CreatedAt, VerifiedAt: a.VerifiedAt}
}

// Payments are the operations on the caller's saved cards and payout
// account.
type Payments struct{ Service *payments.Service }

// PaymentMethods are the caller's saved cards (for an agent, its owner's).
func (x Payments) PaymentMethods(ctx context.Context, c *Caller) ([]PaymentMethod, error) {
	list, err := x.Service.PaymentMethods(ctx, c.Actor)
	if err != nil {
		return nil, err
	}
	out := make([]PaymentMethod, len(list))
	for i := range list {
		out[i] = *PaymentMethodOf(&list[i])
	}
	return out, nil
}

// ConfirmSetup saves the card of a setup intent.
func (x Payments) ConfirmSetup(ctx context.Context, c *Caller, setupIntentID, paymentMethod string) (*PaymentMethod, error) {
	return viewOf(PaymentMethodOf)(x.Service.ConfirmSetup(ctx, c.Actor, setupIntentID, paymentMethod))
}

// SetDefault makes a saved card the default.
func (x Payments) SetDefault(ctx context.Context, c *Caller, id string) (*PaymentMethod, error) {
	return viewOf(PaymentMethodOf)(x.Service.SetDefaultPaymentMethod(ctx, c.Actor, id))
}

// CardOnFile is the caller's default card; nil when none is saved.
func (x Payments) CardOnFile(ctx context.Context, c *Caller) (*PaymentMethod, error) {
	return viewOf(PaymentMethodOf)(x.Service.CardOnFile(ctx, c.Actor))
}

// PayoutAccount is the seller's payout account. (Opening and refreshing
// it answer PayoutAccountOf too; their callers audit the account's own id.)
func (x Payments) PayoutAccount(ctx context.Context, c *Caller) (*PayoutAccount, error) {
	return viewOf(PayoutAccountOf)(x.Service.Account(ctx, c.Actor))
}

// PaymentOps are the card and payout account operations.
func (o Ops) PaymentOps() Payments { return Payments{Service: o.Payments} }
