package apiv1

import (
	"net/http"

	"marketplace/internal/httpapi"
	"marketplace/internal/offers"
)

// RegisterOffers adds the offer routes: the bearer forms under /offers and
// the agent forms under /agent/offers.
func (a *API) RegisterOffers(rt *httpapi.Router) {
	rt = rt.In("offers")
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
	o, err := a.OfferOps().Create(r.Context(), actor(r), offers.CreateInput{ListingID: b.ListingID, OfferPrice: b.OfferPrice,
		Message: b.Message, AutoPurchase: b.AutoPurchaseOnAccept, PaymentMethodID: b.PaymentMethodID,
		ShippingAddressID: b.ShippingAddressID})
	if err != nil {
		return err
	}
	httpapi.Entity(r, "offer", o.ID)
	return httpapi.OK(w, r, http.StatusCreated, o)
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
	id := httpapi.PathEntity(r, "offer")
	o, err := a.OfferOps().Answer(r.Context(), actor(r), id, offers.Answer{Action: offers.ActionCounter,
		CounterPrice: b.CounterPrice, Message: b.Message})
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, o)
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
		id := httpapi.PathEntity(r, "offer")
		return httpapi.Reply(w, r, http.StatusOK).With(a.OfferOps().Answer(r.Context(), actor(r), id, offers.Answer{Action: action, Message: b.Message}))
	}
}

// withdrawOffer is POST /offers/{id}/withdraw: the buyer's.
func (a *API) withdrawOffer(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "offer")
	return httpapi.Reply(w, r, http.StatusOK).With(a.OfferOps().Withdraw(r.Context(), actor(r), id))
}

func (a *API) getOffer(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.OfferOps().Get(r.Context(), actor(r), r.PathValue("id")))
}

// activeOffer is GET /agent/offers/listing/{listingId}: the owner's open
// offer on a listing.
func (a *API) activeOffer(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.OfferOps().ActiveOn(r.Context(), actor(r), r.PathValue("listingId")))
}

// myOffers is GET /offers/buyer/me and /offers/seller/me
// (?status=&limit=&offset=), newest first.
func (a *API) myOffers(role offers.Party) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		limit, offset, err := httpapi.Page(r)
		if err != nil {
			return err
		}
		os, total, err := a.OfferOps().List(r.Context(), actor(r), role, r.URL.Query().Get("status"), limit, offset)
		if err != nil {
			return err
		}
		return httpapi.OKMeta(w, r, http.StatusOK, os, httpapi.PageMeta(total, limit, offset))
	}
}
