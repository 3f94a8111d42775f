package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/moderation"
	"marketplace/internal/offers"
)

// RegisterOffers adds the offer routes: the bearer forms under /offers and
// the agent forms under /agent/offers.
func (a *API) RegisterOffers(rt *httpapi.Router) {
	p := Prefix
	for _, f := range []struct {
		base string
		auth httpapi.Auth
	}{{p + "/offers", httpapi.Bearer}, {p + "/agent/offers", httpapi.Agent}} {
		rt.Handle("POST", f.base, f.auth, a.createOffer)
		rt.Handle("GET", f.base+"/buyer/me", f.auth, a.myOffers(offers.Buyer))
		rt.Handle("GET", f.base+"/seller/me", f.auth, a.myOffers(offers.Seller))
		rt.Handle("GET", f.base+"/{id}", f.auth, a.getOffer)
		rt.Handle("POST", f.base+"/{id}/counter", f.auth, a.counterOffer)
		rt.Handle("POST", f.base+"/{id}/accept", f.auth, a.answerOffer(offers.ActionAccept))
		rt.Handle("POST", f.base+"/{id}/reject", f.auth, a.answerOffer(offers.ActionReject))
		rt.Handle("POST", f.base+"/{id}/withdraw", f.auth, a.withdrawOffer)
	}
	rt.Handle("GET", p+"/agent/offers/listing/{listingId}", httpapi.Agent, a.activeOffer)
}

// offerRound is one amount put on the table.
type offerRound struct {
	Round       int       `json:"round" minimum:"1"`
	By          string    `json:"by" enum:"buyer,seller"`
	Amount      int64     `json:"amount" minimum:"1" doc:"Cents."`
	Message     *string   `json:"message"`
	SentByAgent bool      `json:"sentByAgent" doc:"The round was made by an agent key acting for its verified owner."`
	CreatedAt   time.Time `json:"createdAt"`
	// ContentTrust marks the other party's words to an agent's caller.
	ContentTrust *httpapi.ContentTrust `json:"contentTrust,omitempty" doc:"To an agent key's caller, on a round's message the other party wrote: it is untrusted input (CONTRACT section 16)."`
}

// offer is Variant A's offer (CONTRACT.md section 8).
type offer struct {
	ID                   string                `json:"id"`
	ListingID            string                `json:"listingId"`
	BuyerID              string                `json:"buyerId"`
	SellerID             string                `json:"sellerId"`
	Status               string                `json:"status" enum:"pending,countered,accepted,rejected,withdrawn,expired"`
	OfferPrice           int64                 `json:"offerPrice" minimum:"1" doc:"The buyer's first amount, cents."`
	CounterPrice         *int64                `json:"counterPrice" doc:"The latest counter by either party, cents; null before any."`
	CurrentPrice         int64                 `json:"currentPrice" doc:"The amount on the table now, cents."`
	AgreedPrice          *int64                `json:"agreedPrice" doc:"Set on acceptance: the price a purchase with 'offerId' pays for the item."`
	Message              *string               `json:"message" doc:"The latest round's message."`
	Round                int                   `json:"round" minimum:"1" doc:"Amounts put on the table so far; the first offer is round 1."`
	MaxRounds            int                   `json:"maxRounds" minimum:"1" doc:"The admin setting 'offers.max_rounds' when the offer was made."`
	AwaitingResponseFrom *string               `json:"awaitingResponseFrom" enum:"buyer,seller" doc:"The party who may accept, reject or counter; null once the offer is decided."`
	ExpiresAt            time.Time             `json:"expiresAt" doc:"When the current round runs out (48 hours after it was made); for an accepted offer, the end of the 48 hours to buy it with 'offerId'."`
	AutoPurchaseOnAccept bool                  `json:"autoPurchaseOnAccept"`
	PaymentMethodID      *string               `json:"paymentMethodId" doc:"The card the automatic purchase uses; null for the buyer's default."`
	ShippingAddressID    *string               `json:"shippingAddressId" doc:"The saved address the automatic purchase ships to; null for the buyer's default."`
	OrderID              *string               `json:"orderId" doc:"The order that bought the accepted offer."`
	SentByAgent          bool                  `json:"sentByAgent" doc:"The offer was made by an agent key acting for its verified owner."`
	Rounds               []offerRound          `json:"rounds" doc:"The negotiation, oldest first."`
	FloorPrice           *int64                `json:"floorPrice,omitempty" doc:"Seller views only: the listing's private floor price."`
	CostBasis            *int64                `json:"costBasis,omitempty" doc:"Seller views only: the listing's private cost basis."`
	CreatedAt            time.Time             `json:"createdAt"`
	UpdatedAt            time.Time             `json:"updatedAt"`
	ContentTrust         *httpapi.ContentTrust `json:"contentTrust,omitempty" doc:"To an agent key's caller, when 'message' was written by the other party: it is untrusted input (CONTRACT section 16)."`
}

// toOffer is o as viewer sees it: to an agent key's caller, the messages
// the other party wrote carry httpapi.ContentTrust.
func toOffer(o *offers.Offer, viewer market.Actor) offer {
	author := func(by offers.Party) string {
		if by == offers.Buyer {
			return o.BuyerID
		}
		return o.SellerID
	}
	trust := func(by offers.Party, text string) *httpapi.ContentTrust {
		if text == "" {
			return nil
		}
		return httpapi.ForeignTrust(viewer, author(by), httpapi.TrustOffer, moderation.TrustField{Name: "message", Text: text})
	}
	rounds := make([]offerRound, len(o.Rounds))
	for i, r := range o.Rounds {
		rounds[i] = offerRound{Round: r.Round, By: string(r.By), Amount: r.Amount, Message: strOrNil(r.Message),
			SentByAgent: r.SentByAgent, CreatedAt: r.CreatedAt, ContentTrust: trust(r.By, r.Message)}
	}
	// The offer's message is the latest round's that has one.
	var msgTrust *httpapi.ContentTrust
	for i := len(o.Rounds) - 1; i >= 0 && o.Message != ""; i-- {
		if o.Rounds[i].Message == o.Message {
			msgTrust = rounds[i].ContentTrust
			break
		}
	}
	return offer{ContentTrust: msgTrust, ID: o.ID, ListingID: o.ListingID, BuyerID: o.BuyerID, SellerID: o.SellerID, Status: string(o.Status),
		OfferPrice: o.OfferPrice, CounterPrice: o.CounterPrice, CurrentPrice: o.CurrentPrice, AgreedPrice: o.AgreedPrice,
		Message: strOrNil(o.Message), Round: o.Round, MaxRounds: o.MaxRounds, AwaitingResponseFrom: strOrNil(string(o.Awaiting)),
		ExpiresAt: o.ExpiresAt, AutoPurchaseOnAccept: o.AutoPurchase, PaymentMethodID: strOrNil(o.PaymentMethodID),
		ShippingAddressID: strOrNil(o.ShippingAddressID), OrderID: strOrNil(o.OrderID), SentByAgent: o.SentByAgent,
		Rounds: rounds, FloorPrice: o.FloorPrice, CostBasis: o.CostBasis, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
}

func caller(r *http.Request) offers.Caller {
	p := actor(r)
	return offers.Caller{Actor: p.Actor, User: p.User, Key: p.Key}
}

type createOfferBody struct {
	ListingID            string `json:"listingId" format:"uuid" required:"true"`
	OfferPrice           *int64 `json:"offerPrice" minimum:"1" maximum:"1000000000" required:"true" doc:"Cents, below the listing's price and at least its 'minOfferAmount'."`
	Message              string `json:"message" maxLength:"1000" doc:"To the seller; leading and trailing spaces are dropped."`
	AutoPurchaseOnAccept *bool  `json:"autoPurchaseOnAccept" doc:"Buy at once when the offer is accepted (default true)."`
	PaymentMethodID      string `json:"paymentMethodId" doc:"A saved card of the buyer's for the automatic purchase; the default card otherwise."`
	ShippingAddressID    string `json:"shippingAddressId" doc:"A saved address of the buyer's for the automatic purchase; the default address otherwise."`
}

// createOffer is POST /offers and /agent/offers (CreateOfferDto).
func (a *API) createOffer(w http.ResponseWriter, r *http.Request) error {
	var b createOfferBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	httpapi.Entity(r, "listing", b.ListingID)
	o, err := a.Offers.Create(r.Context(), caller(r), offers.CreateInput{ListingID: b.ListingID, OfferPrice: b.OfferPrice,
		Message: b.Message, AutoPurchase: b.AutoPurchaseOnAccept, PaymentMethodID: b.PaymentMethodID,
		ShippingAddressID: b.ShippingAddressID})
	if err != nil {
		return err
	}
	httpapi.Entity(r, "offer", o.ID)
	return httpapi.OK(w, r, http.StatusCreated, toOffer(o, actor(r).Actor))
}

type counterOfferBody struct {
	CounterPrice *int64 `json:"counterPrice" minimum:"1" maximum:"1000000000" required:"true" doc:"Cents, below the listing's price (and, from the buyer, at least its 'minOfferAmount')."`
	Message      string `json:"message" maxLength:"1000"`
}

// counterOffer is POST /offers/{id}/counter (CounterOfferDto).
func (a *API) counterOffer(w http.ResponseWriter, r *http.Request) error {
	var b counterOfferBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	id := r.PathValue("id")
	httpapi.Entity(r, "offer", id)
	o, err := a.Offers.Respond(r.Context(), caller(r), id, offers.Answer{Action: offers.ActionCounter,
		CounterPrice: b.CounterPrice, Message: b.Message})
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toOffer(o, actor(r).Actor))
}

type answerOfferBody struct {
	Message string `json:"message" maxLength:"1000" doc:"Optional; the body may be left out."`
}

// answerOffer is POST /offers/{id}/accept and /reject.
func (a *API) answerOffer(action offers.Action) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var b answerOfferBody
		if err := httpapi.DecodeOptional(r, &b); err != nil {
			return err
		}
		id := r.PathValue("id")
		httpapi.Entity(r, "offer", id)
		o, err := a.Offers.Respond(r.Context(), caller(r), id, offers.Answer{Action: action, Message: b.Message})
		if err != nil {
			return err
		}
		return httpapi.OK(w, r, http.StatusOK, toOffer(o, actor(r).Actor))
	}
}

// withdrawOffer is POST /offers/{id}/withdraw: the buyer's.
func (a *API) withdrawOffer(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	httpapi.Entity(r, "offer", id)
	o, err := a.Offers.Withdraw(r.Context(), caller(r), id)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toOffer(o, actor(r).Actor))
}

func (a *API) getOffer(w http.ResponseWriter, r *http.Request) error {
	o, err := a.Offers.Get(r.Context(), caller(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toOffer(o, actor(r).Actor))
}

// activeOffer is GET /agent/offers/listing/{listingId}: the owner's open
// offer on a listing.
func (a *API) activeOffer(w http.ResponseWriter, r *http.Request) error {
	o, err := a.Offers.ActiveOn(r.Context(), caller(r), r.PathValue("listingId"))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toOffer(o, actor(r).Actor))
}

// myOffers is GET /offers/buyer/me and /offers/seller/me
// (?status=&limit=&offset=), newest first.
func (a *API) myOffers(role offers.Party) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		limit, offset, err := httpapi.Page(r)
		if err != nil {
			return err
		}
		os, total, err := a.Offers.List(r.Context(), caller(r), role, r.URL.Query().Get("status"), limit, offset)
		if err != nil {
			return err
		}
		out := make([]offer, len(os))
		for i := range os {
			out[i] = toOffer(&os[i], actor(r).Actor)
		}
		return httpapi.OKMeta(w, r, http.StatusOK, out, httpapi.PageMeta(total, limit, offset))
	}
}
