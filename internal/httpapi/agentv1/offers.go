package agentv1

import (
	"net/http"
	"time"

	"marketplace/internal/httpapi"
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
}

// offer is Variant B's offer: Variant A's fields in snake_case.
type offer struct {
	ID                   string       `json:"id"`
	ListingID            string       `json:"listing_id"`
	BuyerID              string       `json:"buyer_id"`
	SellerID             string       `json:"seller_id"`
	Status               string       `json:"status" enum:"pending,countered,accepted,rejected,withdrawn,expired"`
	OfferPrice           int64        `json:"offer_price" minimum:"1" doc:"The buyer's first amount, cents."`
	CounterPrice         *int64       `json:"counter_price" doc:"The latest counter by either party, cents; null before any."`
	CurrentPrice         int64        `json:"current_price" doc:"The amount on the table now, cents."`
	AgreedPrice          *int64       `json:"agreed_price" doc:"Set on acceptance: the price a purchase with 'offer_id' pays for the item."`
	Message              *string      `json:"message" doc:"The latest round's message."`
	Round                int          `json:"round" minimum:"1"`
	MaxRounds            int          `json:"max_rounds" minimum:"1"`
	AwaitingResponseFrom *string      `json:"awaiting_response_from" enum:"buyer,seller" doc:"The party who may accept, reject or counter; null once the offer is decided."`
	ExpiresAt            time.Time    `json:"expires_at" doc:"When the current round runs out (48 hours after it was made); for an accepted offer, the end of the 48 hours to buy it with 'offer_id'."`
	AutoPurchaseOnAccept bool         `json:"auto_purchase_on_accept"`
	OrderID              *string      `json:"order_id" doc:"The order that bought the accepted offer."`
	SentByAgent          bool         `json:"sent_by_agent" doc:"The offer was made by an agent key acting for its verified owner."`
	Rounds               []offerRound `json:"rounds" doc:"The negotiation, oldest first."`
	FloorPrice           *int64       `json:"floor_price,omitempty" doc:"The seller's view only: the listing's private floor price."`
	CostBasis            *int64       `json:"cost_basis,omitempty" doc:"The seller's view only: the listing's private cost basis."`
	CreatedAt            time.Time    `json:"created_at"`
	UpdatedAt            time.Time    `json:"updated_at"`
}

func toOffer(o *offers.Offer) offer {
	rounds := make([]offerRound, len(o.Rounds))
	for i, r := range o.Rounds {
		rounds[i] = offerRound{Round: r.Round, By: string(r.By), Amount: r.Amount, Message: strOrNil(r.Message),
			SentByAgent: r.SentByAgent, CreatedAt: r.CreatedAt}
	}
	return offer{ID: o.ID, ListingID: o.ListingID, BuyerID: o.BuyerID, SellerID: o.SellerID, Status: string(o.Status),
		OfferPrice: o.OfferPrice, CounterPrice: o.CounterPrice, CurrentPrice: o.CurrentPrice, AgreedPrice: o.AgreedPrice,
		Message: strOrNil(o.Message), Round: o.Round, MaxRounds: o.MaxRounds, AwaitingResponseFrom: strOrNil(string(o.Awaiting)),
		ExpiresAt: o.ExpiresAt, AutoPurchaseOnAccept: o.AutoPurchase, OrderID: strOrNil(o.OrderID), SentByAgent: o.SentByAgent,
		Rounds: rounds, FloorPrice: o.FloorPrice, CostBasis: o.CostBasis, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
}

func caller(r *http.Request) offers.Caller {
	p := httpapi.PrincipalOf(r)
	return offers.Caller{Actor: p.Actor, User: p.User, Key: p.Key}
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
	o, err := a.Offers.Create(r.Context(), caller(r), offers.CreateInput{ListingID: b.ListingID, OfferPrice: b.Amount,
		Message: b.Message, AutoPurchase: b.AutoPurchaseOnAccept})
	if err != nil {
		return err
	}
	httpapi.Entity(r, "offer", o.ID)
	return httpapi.OK(w, r, http.StatusCreated, toOffer(o))
}

func (a *API) getOffer(w http.ResponseWriter, r *http.Request) error {
	o, err := a.Offers.Get(r.Context(), caller(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toOffer(o))
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
	o, err := a.Offers.Respond(r.Context(), caller(r), id, offers.Answer{Action: offers.Action(b.Action),
		CounterPrice: b.CounterAmount, Message: b.Message})
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toOffer(o))
}
