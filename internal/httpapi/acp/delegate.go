package acp

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/payments"
)

// MerchantID is this marketplace as a merchant of its payment handlers:
// the allowance of a delegated card must name it.
const MerchantID = "marketplace"

// DelegatePath is where the sandbox processor serves ACP's
// delegate_payment (CONTRACT.md section 18).
const DelegatePath = Prefix + "/delegate_payment"

type delegateCard struct {
	Type           string            `json:"type"`
	NumberType     string            `json:"card_number_type"`
	Virtual        *bool             `json:"virtual"`
	Number         string            `json:"number"`
	ExpMonth       string            `json:"exp_month"`
	ExpYear        string            `json:"exp_year"`
	Name           string            `json:"name"`
	CVC            string            `json:"cvc"`
	Cryptogram     string            `json:"cryptogram"`
	ECI            string            `json:"eci_value"`
	Checks         []string          `json:"checks_performed"`
	IIN            string            `json:"iin"`
	Funding        string            `json:"display_card_funding_type"`
	Wallet         string            `json:"display_wallet_type"`
	Brand          string            `json:"display_brand"`
	Last4          string            `json:"display_last4"`
	Metadata       map[string]string `json:"metadata"`
	BillingAddress json.RawMessage   `json:"billing_address"`
}

type delegateAllowance struct {
	Reason            string `json:"reason"`
	MaxAmount         *int64 `json:"max_amount"`
	Currency          string `json:"currency"`
	CheckoutSessionID string `json:"checkout_session_id"`
	MerchantID        string `json:"merchant_id"`
	ExpiresAt         string `json:"expires_at"`
}

type riskSignal struct {
	Type   string `json:"type"`
	Score  *int64 `json:"score"`
	Action string `json:"action"`
}

type delegateRequest struct {
	PaymentMethod  *delegateCard      `json:"payment_method"`
	Allowance      *delegateAllowance `json:"allowance"`
	BillingAddress *address           `json:"billing_address"`
	RiskSignals    []riskSignal       `json:"risk_signals"`
	Metadata       map[string]string  `json:"metadata"`
}

type delegateResponse struct {
	ID       string            `json:"id"`
	Created  time.Time         `json:"created"`
	Metadata map[string]string `json:"metadata"`
}

// cardInvalid is a refusal of a delegate_payment request: ACP's
// delegate_payment errors know one request code, invalid_card.
func cardInvalid(param, message string) error {
	return market.Invalid(market.FieldError{Field: param, AsSent: true, Message: message}).
		WithDetails(map[string]any{"acp_code": "invalid_card"})
}

// delegate is POST /acp/delegate_payment: the sandbox processor keeps the
// card and answers a vt_ token, chargeable once within its allowance for
// a session of the caller's.
func (b *Binding) delegate(w http.ResponseWriter, r *http.Request) error {
	var req delegateRequest
	if err := decode(r, &req, 0); err != nil {
		if e := market.ErrorOf(err); e != nil && e.Code == market.CodeValidation {
			return e.WithDetails(map[string]any{"acp_code": "invalid_card"})
		}
		return err
	}
	pm, al := req.PaymentMethod, req.Allowance
	switch {
	case pm == nil:
		return cardInvalid("$.payment_method", "is required")
	case pm.Type != "card":
		return cardInvalid("$.payment_method.type", `must be "card"`)
	case pm.NumberType != "fpan" && pm.NumberType != "network_token":
		return cardInvalid("$.payment_method.card_number_type", "must be fpan or network_token")
	case pm.Number == "":
		return cardInvalid("$.payment_method.number", "is required")
	case pm.Funding != "credit" && pm.Funding != "debit" && pm.Funding != "prepaid":
		return cardInvalid("$.payment_method.display_card_funding_type", "must be credit, debit or prepaid")
	case pm.Metadata == nil:
		return cardInvalid("$.payment_method.metadata", "is required")
	case al == nil:
		return cardInvalid("$.allowance", "is required")
	case al.Reason != "one_time":
		return cardInvalid("$.allowance.reason", "must be one_time")
	case al.MaxAmount == nil:
		return cardInvalid("$.allowance.max_amount", "is required")
	case al.MerchantID != MerchantID:
		return cardInvalid("$.allowance.merchant_id", "must be "+MerchantID+", the merchant_id of the card handler's config")
	case len(req.RiskSignals) == 0:
		return cardInvalid("$.risk_signals", "must hold at least one risk signal")
	case req.Metadata == nil:
		return cardInvalid("$.metadata", "is required")
	}
	month, year, err := expiry(pm.ExpMonth, pm.ExpYear)
	if err != nil {
		return err
	}
	expires, err := time.Parse(time.RFC3339, al.ExpiresAt)
	if err != nil {
		return cardInvalid("$.allowance.expires_at", "must be an RFC 3339 date-time")
	}
	for i, s := range req.RiskSignals {
		if s.Action == "blocked" {
			return cardInvalid("$.risk_signals["+strconv.Itoa(i)+"]", "the platform's risk check blocked this card")
		}
	}
	// The session must be one of the caller's: a token is only ever
	// delegated for the credential's own checkout.
	if _, err := b.Ops.Checkouts.Get(r.Context(), buyerOf(r), al.CheckoutSessionID); market.CodeOf(err) == market.CodeNotFound {
		return cardInvalid("$.allowance.checkout_session_id", "is not a checkout session of yours")
	} else if err != nil {
		return err
	}
	t, err := b.Vault.Delegate(r.Context(), payments.DelegatedCard{Number: pm.Number, ExpMonth: month, ExpYear: year,
		Brand: pm.Brand, Owner: credentialOf(httpapi.PrincipalOf(r)), Metadata: req.Metadata, Allow: payments.Allowance{MaxAmount: *al.MaxAmount,
			Currency: strings.ToLower(al.Currency), CheckoutSessionID: al.CheckoutSessionID, MerchantID: al.MerchantID, ExpiresAt: expires}})
	if e := market.ErrorOf(err); e != nil && e.Code == market.CodeValidation && len(e.Fields) > 0 {
		param := map[string]string{"number": "$.payment_method.number", "exp_month": "$.payment_method.exp_month",
			"exp_year": "$.payment_method.exp_year"}[e.Fields[0].Field]
		if param == "" {
			param = "$.allowance." + e.Fields[0].Field
		}
		return cardInvalid(param, e.Fields[0].Message)
	}
	if err != nil {
		return err
	}
	meta := map[string]string{"merchant_id": MerchantID}
	for k, v := range req.Metadata {
		meta[k] = v
	}
	if k := r.Header.Get("Idempotency-Key"); k != "" {
		meta["idempotency_key"] = k
	}
	httpapi.WriteJSON(w, http.StatusCreated, delegateResponse{ID: t.ID, Created: t.CreatedAt, Metadata: meta})
	return nil
}

// expiry reads a card's exp_month and exp_year ("1" to "12", four digits).
func expiry(m, y string) (int, int, error) {
	month, err := strconv.Atoi(m)
	if err != nil || len(m) > 2 || month < 1 || month > 12 {
		return 0, 0, cardInvalid("$.payment_method.exp_month", "must be a month, 01 to 12")
	}
	year, err := strconv.Atoi(y)
	if err != nil || len(y) != 4 {
		return 0, 0, cardInvalid("$.payment_method.exp_year", "must be a four-digit year")
	}
	return month, year, nil
}
