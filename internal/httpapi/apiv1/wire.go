// Package apiv1 is Variant A of the interface: camelCase JSON under
// /api/v1. Its handlers decode the request bodies of this surface, call
// one operation (internal/api) or service method and encode the views; the
// wire types here are the ones only this surface has.
package apiv1

import (
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/api"
)

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

type authResult struct {
	User        api.User  `json:"user"`
	AccessToken string    `json:"accessToken" doc:"A bearer token (JWT)."`
	ExpiresAt   time.Time `json:"expiresAt"`
}

// addressInput is an address in a request body.
type addressInput struct {
	Name      string `json:"name" maxLength:"80"`
	Line1     string `json:"line1" minLength:"1" maxLength:"200" required:"true"`
	Line2     string `json:"line2" maxLength:"200"`
	City      string `json:"city" minLength:"1" maxLength:"100" required:"true"`
	State     string `json:"state" maxLength:"100"`
	Zip       string `json:"zip" minLength:"1" maxLength:"16" required:"true"`
	Country   string `json:"country" pattern:"^([A-Za-z]{2})?$"`
	Phone     string `json:"phone" maxLength:"32"`
	IsDefault bool   `json:"isDefault" doc:"'POST /addresses' only: make this the default."`
}

func (a addressInput) domain() accounts.Address {
	return accounts.Address{Name: a.Name, Line1: a.Line1, Line2: a.Line2, City: a.City, State: a.State, Zip: a.Zip,
		Country: a.Country, Phone: a.Phone}
}
