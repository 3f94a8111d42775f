package agentv1

import (
	"context"
	"net/http"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/moderation"
	"marketplace/internal/offers"
)

// RegisterOffers adds Variant B's offer routes: make an offer, read it,
// answer it.
func (a *API) RegisterOffers(rt *httpapi.Router) {
	rt.Handle("POST", Prefix+"/offers", httpapi.Either, a.createOffer)
	rt.Handle("GET", Prefix+"/offers/{id}", httpapi.Either, a.getOffer)
	rt.Handle("POST", Prefix+"/offers/{id}/respond", httpapi.Either, a.respondOffer)
}

type offerRound struct {
	Round       int       `json:"round" minimum:"1"`
	By          string    `json:"by" enum:"buyer,seller"`
	Amount      int64     `json:"amount" minimum:"1" doc:"Cents."`
	Message     *string   `json:"message"`
	SentByAgent bool      `json:"sent_by_agent" doc:"The round was made by an agent key acting for its verified owner."`
	CreatedAt   time.Time `json:"created_at"`
	// ContentTrust marks the other party's words to an agent's caller.
	ContentTrust *httpapi.ContentTrust `json:"content_trust,omitempty" doc:"To an agent key's caller, on a message the other party wrote: it is untrusted input (CONTRACT section 16)."`
}

// offer is Variant B's offer: Variant A's fields in snake_case.
type offer struct {
	ID                   string                `json:"id"`
	ListingID            string                `json:"listing_id"`
	BuyerID              string                `json:"buyer_id"`
	SellerID             string                `json:"seller_id"`
	Status               string                `json:"status" enum:"pending,countered,accepted,rejected,withdrawn,expired"`
	OfferPrice           int64                 `json:"offer_price" minimum:"1" doc:"The buyer's first amount, cents."`
	CounterPrice         *int64                `json:"counter_price" doc:"The latest counter by either party, cents; null before any."`
	CurrentPrice         int64                 `json:"current_price" doc:"The amount on the table now, cents."`
	AgreedPrice          *int64                `json:"agreed_price" doc:"Set on acceptance: the price a purchase with 'offer_id' pays for the item."`
	Message              *string               `json:"message" doc:"The latest round's message."`
	Round                int                   `json:"round" minimum:"1"`
	MaxRounds            int                   `json:"max_rounds" minimum:"1"`
	AwaitingResponseFrom *string               `json:"awaiting_response_from" enum:"buyer,seller" doc:"The party who may accept, reject or counter; null once the offer is decided."`
	ExpiresAt            time.Time             `json:"expires_at" doc:"When the current round runs out (48 hours after it was made); for an accepted offer, the end of the 48 hours to buy it with 'offer_id'."`
	AutoPurchaseOnAccept bool                  `json:"auto_purchase_on_accept"`
	OrderID              *string               `json:"order_id" doc:"The order that bought the accepted offer."`
	SentByAgent          bool                  `json:"sent_by_agent" doc:"The offer was made by an agent key acting for its verified owner."`
	Rounds               []offerRound          `json:"rounds" doc:"The negotiation, oldest first."`
	FloorPrice           *int64                `json:"floor_price,omitempty" doc:"The seller's view only: the listing's private floor price."`
	CostBasis            *int64                `json:"cost_basis,omitempty" doc:"The seller's view only: the listing's private cost basis."`
	CreatedAt            time.Time             `json:"created_at"`
	UpdatedAt            time.Time             `json:"updated_at"`
	ContentTrust         *httpapi.ContentTrust `json:"content_trust,omitempty" doc:"To an agent key's caller, when 'message' was written by the other party: it is untrusted input (CONTRACT section 16)."`
}

// toOffer is o as c sees it: to an agent key's caller, the messages the
// other party wrote carry content_trust.
func toOffer(o *offers.Offer, c offers.Caller) offer {
	agent := c.Key != nil
	other := func(by offers.Party, text string) *httpapi.ContentTrust {
		if !agent || text == "" || (by == offers.Buyer) == (c.Actor.UserID == o.BuyerID) {
			return nil
		}
		return offerTrust(text)
	}
	rounds := make([]offerRound, len(o.Rounds))
	for i, r := range o.Rounds {
		rounds[i] = offerRound{Round: r.Round, By: string(r.By), Amount: r.Amount, Message: strOrNil(r.Message),
			SentByAgent: r.SentByAgent, CreatedAt: r.CreatedAt, ContentTrust: other(r.By, r.Message)}
	}
	// The offer's message is its latest round's with one: its author's
	// (unknown, it is marked all the same).
	var trust *httpapi.ContentTrust
	if agent && o.Message != "" {
		trust = offerTrust(o.Message)
		for i := len(o.Rounds) - 1; i >= 0; i-- {
			if o.Rounds[i].Message == o.Message {
				trust = other(o.Rounds[i].By, o.Message)
				break
			}
		}
	}
	return offer{ContentTrust: trust, ID: o.ID, ListingID: o.ListingID, BuyerID: o.BuyerID, SellerID: o.SellerID, Status: string(o.Status),
		OfferPrice: o.OfferPrice, CounterPrice: o.CounterPrice, CurrentPrice: o.CurrentPrice, AgreedPrice: o.AgreedPrice,
		Message: strOrNil(o.Message), Round: o.Round, MaxRounds: o.MaxRounds, AwaitingResponseFrom: strOrNil(string(o.Awaiting)),
		ExpiresAt: o.ExpiresAt, AutoPurchaseOnAccept: o.AutoPurchase, OrderID: strOrNil(o.OrderID), SentByAgent: o.SentByAgent,
		Rounds: rounds, FloorPrice: o.FloorPrice, CostBasis: o.CostBasis, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
}

func offerCaller(p *httpapi.Principal) offers.Caller {
	return offers.Caller{Actor: p.Actor, User: p.User, Key: p.Key}
}

// offerTrust marks an offer message another party wrote.
func offerTrust(text string) *httpapi.ContentTrust {
	return httpapi.NewTrust(httpapi.TrustOffer, moderation.TrustField{Name: "message", Text: text})
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
func (a *API) createOfferOf(ctx context.Context, p *httpapi.Principal, b *createOfferBody) (*offer, error) {
	c := offerCaller(p)
	o, err := a.Offers.Create(ctx, c, offers.CreateInput{ListingID: b.ListingID, OfferPrice: b.Amount,
		Message: b.Message, AutoPurchase: b.AutoPurchaseOnAccept})
	if err != nil {
		return nil, err
	}
	out := toOffer(o, c)
	return &out, nil
}

// getOfferOf is GET /v1/offers/{id} and the get_offer tool.
func (a *API) getOfferOf(ctx context.Context, p *httpapi.Principal, id string) (*offer, error) {
	c := offerCaller(p)
	o, err := a.Offers.Get(ctx, c, id)
	if err != nil {
		return nil, err
	}
	out := toOffer(o, c)
	return &out, nil
}

// respondOfferOf is POST /v1/offers/{id}/respond and the accept_offer,
// reject_offer and counter_offer tools.
func (a *API) respondOfferOf(ctx context.Context, p *httpapi.Principal, id string, b *respondOfferBody) (*offer, error) {
	c := offerCaller(p)
	o, err := a.Offers.Respond(ctx, c, id, offers.Answer{Action: offers.Action(b.Action),
		CounterPrice: b.CounterAmount, Message: b.Message})
	if err != nil {
		return nil, err
	}
	out := toOffer(o, c)
	return &out, nil
}

func (a *API) getOffer(w http.ResponseWriter, r *http.Request) error {
	o, err := a.getOfferOf(r.Context(), httpapi.PrincipalOf(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, o)
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
	id := r.PathValue("id")
	httpapi.Entity(r, "offer", id)
	o, err := a.respondOfferOf(r.Context(), httpapi.PrincipalOf(r), id, &b)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, o)
}

// withdrawOfferOf is the withdraw_offer tool (Variant A's POST
// /api/v1/agent/offers/{id}/withdraw): the buyer takes an open offer back.
func (a *API) withdrawOfferOf(ctx context.Context, p *httpapi.Principal, id string) (*offer, error) {
	c := offerCaller(p)
	o, err := a.Offers.Withdraw(ctx, c, id)
	if err != nil {
		return nil, err
	}
	out := toOffer(o, c)
	return &out, nil
}

// offerList is the get_offers tool's answer (Variant A's GET
// /api/v1/agent/offers/buyer/me and /seller/me), as Variant B spells lists.
type offerList struct {
	Offers []offer `json:"offers" doc:"Newest first."`
	Total  int     `json:"total" minimum:"0" doc:"All the caller's offers in this role and status."`
	Limit  int     `json:"limit" minimum:"1"`
	Offset int     `json:"offset" minimum:"0"`
}

// offersOf lists the caller's offers as buyer or seller.
func (a *API) offersOf(ctx context.Context, p *httpapi.Principal, role offers.Party, status string, limit, offset int) (*offerList, error) {
	c := offerCaller(p)
	os, total, err := a.Offers.List(ctx, c, role, status, limit, offset)
	if err != nil {
		return nil, err
	}
	out := &offerList{Offers: make([]offer, len(os)), Total: total, Limit: limit, Offset: offset}
	for i := range os {
		out.Offers[i] = toOffer(&os[i], c)
	}
	return out, nil
}
