package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
)

// The wire shapes of ACP 2026-04-17's checkout, as its JSON Schema bundle
// gives them (acpcheck encodes the same facts for the tests). Requests
// are closed objects: an unknown field is refused. Fields the binding does
// not act on are accepted and kept out of the way as raw JSON.

type address struct {
	Name       string `json:"name"`
	LineOne    string `json:"line_one"`
	LineTwo    string `json:"line_two,omitempty"`
	City       string `json:"city"`
	State      string `json:"state"`
	Country    string `json:"country"`
	PostalCode string `json:"postal_code"`
	Company    string `json:"company,omitempty"`
}

type buyer struct {
	FirstName   string          `json:"first_name,omitempty"`
	LastName    string          `json:"last_name,omitempty"`
	FullName    string          `json:"full_name,omitempty"`
	Email       string          `json:"email"`
	PhoneNumber string          `json:"phone_number,omitempty"`
	CustomerID  string          `json:"customer_id,omitempty"`
	AccountType string          `json:"account_type,omitempty"`
	AuthStatus  string          `json:"authentication_status,omitempty"`
	Company     json.RawMessage `json:"company,omitempty"`
	Loyalty     json.RawMessage `json:"loyalty,omitempty"`
	TaxExempt   json.RawMessage `json:"tax_exemption,omitempty"`
}

type fulfillmentDetails struct {
	Name        string   `json:"name,omitempty"`
	PhoneNumber string   `json:"phone_number,omitempty"`
	Email       string   `json:"email,omitempty"`
	Address     *address `json:"address,omitempty"`
}

// itemRef is a line item as a request names it: the listing's id.
type itemRef struct {
	ID         string `json:"id"`
	Name       string `json:"name,omitempty"`
	UnitAmount *int64 `json:"unit_amount,omitempty"`
}

type selectedOption struct {
	Type     string   `json:"type"`
	OptionID string   `json:"option_id"`
	ItemIDs  []string `json:"item_ids"`
}

type createRequest struct {
	Buyer              *buyer              `json:"buyer"`
	LineItems          []itemRef           `json:"line_items"`
	Currency           string              `json:"currency"`
	FulfillmentDetails *fulfillmentDetails `json:"fulfillment_details"`
	Capabilities       json.RawMessage     `json:"capabilities"`
	FulfillmentGroups  json.RawMessage     `json:"fulfillment_groups"`
	Affiliate          json.RawMessage     `json:"affiliate_attribution"`
	Coupons            json.RawMessage     `json:"coupons"`
	Discounts          json.RawMessage     `json:"discounts"`
	Locale             string              `json:"locale"`
	Timezone           string              `json:"timezone"`
	QuoteID            string              `json:"quote_id"`
	Metadata           json.RawMessage     `json:"metadata"`
	OrderNotes         string              `json:"order_notes"`
}

type updateRequest struct {
	Buyer              *buyer              `json:"buyer"`
	LineItems          []itemRef           `json:"line_items"`
	FulfillmentDetails *fulfillmentDetails `json:"fulfillment_details"`
	FulfillmentGroups  json.RawMessage     `json:"fulfillment_groups"`
	Selected           []selectedOption    `json:"selected_fulfillment_options"`
	Coupons            json.RawMessage     `json:"coupons"`
	Discounts          json.RawMessage     `json:"discounts"`
	OrderNotes         string              `json:"order_notes"`
}

type credential struct {
	Type  string `json:"type"`
	Token string `json:"token"`
}

type instrument struct {
	Type       string      `json:"type"`
	Credential *credential `json:"credential"`
}

type paymentData struct {
	HandlerID      string      `json:"handler_id"`
	Instrument     *instrument `json:"instrument"`
	BillingAddress *address    `json:"billing_address"`
	PONumber       string      `json:"purchase_order_number"`
	PaymentTerms   string      `json:"payment_terms"`
	DueDate        string      `json:"due_date"`
	Approval       *bool       `json:"approval_required"`
}

type completeRequest struct {
	Buyer       *buyer          `json:"buyer"`
	PaymentData *paymentData    `json:"payment_data"`
	AuthResult  json.RawMessage `json:"authentication_result"`
	Affiliate   json.RawMessage `json:"affiliate_attribution"`
	RiskSignals json.RawMessage `json:"risk_signals"`
	Consents    json.RawMessage `json:"marketing_consents"`
	OrderNotes  string          `json:"order_notes"`
}

type cancelRequest struct {
	IntentTrace json.RawMessage `json:"intent_trace"`
}

// How decode takes a body.
type bodyRule int

const (
	bodyOptional bodyRule = 1 << iota // an empty body is no fields
	bodyOpen                          // unknown fields are let through
)

// decode reads an ACP request body into dst, refusing unknown fields
// (unless bodyOpen); a problem names its JSONPath as the param.
func decode(r *http.Request, dst any, rule bodyRule) error {
	body, err := httpapi.ReadBody(r)
	if err != nil {
		return err
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 && rule&bodyOptional != 0 {
		return nil
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return invalid("$", "the request body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if rule&bodyOpen == 0 {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typeErr) && typeErr.Field != "":
			return invalid("$."+typeErr.Field, "has the wrong type ("+typeErr.Value+")")
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return invalid("$."+name, "is not a field of this request")
		}
		return invalid("$", "the request body is not valid JSON")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return invalid("$", "the request body must hold exactly one JSON value")
	}
	return nil
}

// invalid is a 400 invalid_request naming param.
func invalid(param, message string) error {
	return market.Invalid(market.FieldError{Field: param, AsSent: true, Message: message})
}

// paramOf is a field name as an ACP param: a JSONPath.
func paramOf(field string) string {
	if strings.HasPrefix(field, "$") || strings.Contains(field, "-") {
		return field // already a path, or a header
	}
	return "$." + field
}
