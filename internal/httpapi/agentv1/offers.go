package agentv1

import (
	"context"
	"net/http"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/offers"
)

// RegisterOffers adds Variant B's offer routes: make an offer, read it,
// answer it.
func (a *API) RegisterOffers(rt *httpapi.Router) {
	rt = rt.In("offers")
	rt.Handle("POST", Prefix+"/offers", httpapi.Either, a.createOffer)
	rt.Handle("GET", Prefix+"/offers/{id}", httpapi.Either, a.getOffer)
	rt.Handle("POST", Prefix+"/offers/{id}/respond", httpapi.Either, a.respondOffer)
}

type createOfferBody struct {
	ListingID            string `json:"listing_id" format:"uuid" required:"true"`
	Amount               *int64 `json:"amount" minimum:"1" maximum:"1000000000" required:"true" doc:"Cents, below the listing's price and at least its minimum offer amount."`
	Message              string `json:"message" maxLength:"1000" doc:"To the seller; leading and trailing spaces are dropped."`
	AutoPurchaseOnAccept *bool  `json:"auto_purchase_on_accept" doc:"Buy at once when the offer is accepted (default true), with the default card and address."`
}

// createOffer is POST /v1/offers: the buyer (an agent with buy scope, or
// the human) offers.
func (a *API) createOffer(w http.ResponseWriter, r *http.Request) error {
	var b createOfferBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	httpapi.Entity(r, "listing", b.ListingID)
	o, err := a.createOfferOf(r.Context(), httpapi.PrincipalOf(r), &b)
	if err != nil {
		return err
	}
	httpapi.Entity(r, "offer", o.ID)
	return httpapi.OK(w, r, http.StatusCreated, o)
}

// createOfferOf is POST /v1/offers and the make_offer tool.
func (a *API) createOfferOf(ctx context.Context, p *httpapi.Principal, b *createOfferBody) (*api.Offer, error) {
	return a.OfferOps().Create(ctx, p, offers.CreateInput{ListingID: b.ListingID, OfferPrice: b.Amount,
		Message: b.Message, AutoPurchase: b.AutoPurchaseOnAccept})
}

// getOfferOf is GET /v1/offers/{id} and the get_offer tool.
func (a *API) getOfferOf(ctx context.Context, p *httpapi.Principal, id string) (*api.Offer, error) {
	return a.OfferOps().Get(ctx, p, id)
}

// respondOfferOf is POST /v1/offers/{id}/respond and the accept_offer,
// reject_offer and counter_offer tools.
func (a *API) respondOfferOf(ctx context.Context, p *httpapi.Principal, id string, b *respondOfferBody) (*api.Offer, error) {
	return a.OfferOps().Answer(ctx, p, id, offers.Answer{Action: offers.Action(b.Action),
		CounterPrice: b.CounterAmount, Message: b.Message})
}

func (a *API) getOffer(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.getOfferOf(r.Context(), httpapi.PrincipalOf(r), r.PathValue("id")))
}

type respondOfferBody struct {
	Action        string `json:"action" enum:"accept,reject,counter" required:"true"`
	CounterAmount *int64 `json:"counter_amount" minimum:"1" maximum:"1000000000" doc:"Required with 'counter': cents, below the listing's price."`
	Message       string `json:"message" maxLength:"1000"`
}

// respondOffer is POST /v1/offers/{id}/respond: the party asked accepts,
// rejects or counters.
func (a *API) respondOffer(w http.ResponseWriter, r *http.Request) error {
	var b respondOfferBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	id := httpapi.PathEntity(r, "offer")
	return httpapi.Reply(w, r, http.StatusOK).With(a.respondOfferOf(r.Context(), httpapi.PrincipalOf(r), id, &b))
}

// withdrawOfferOf is the withdraw_offer tool (Variant A's POST
// /api/v1/agent/offers/{id}/withdraw): the buyer takes an open offer back.
func (a *API) withdrawOfferOf(ctx context.Context, p *httpapi.Principal, id string) (*api.Offer, error) {
	return a.OfferOps().Withdraw(ctx, p, id)
}

// offerList is the get_offers tool's answer (Variant A's GET
// /api/v1/agent/offers/buyer/me and /seller/me), as Variant B spells lists.
type offerList struct {
	Offers []api.Offer `json:"offers" doc:"Newest first."`
	Total  int         `json:"total" minimum:"0" doc:"All the caller's offers in this role and status."`
	Limit  int         `json:"limit" minimum:"1"`
	Offset int         `json:"offset" minimum:"0"`
}

// offersOf lists the caller's offers as buyer or seller.
func (a *API) offersOf(ctx context.Context, p *httpapi.Principal, role offers.Party, status string, limit, offset int) (*offerList, error) {
	os, total, err := a.OfferOps().List(ctx, p, role, status, limit, offset)
	if err != nil {
		return nil, err
	}
	return &offerList{Offers: os, Total: total, Limit: limit, Offset: offset}, nil
}
