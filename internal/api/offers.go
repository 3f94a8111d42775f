package api

import (
	"context"
	"time"

	"marketplace/internal/market"
	"marketplace/internal/moderation"
	"marketplace/internal/offers"
)

// OfferRound is one amount put on the table.
type OfferRound struct {
	Round       int       `json:"round" minimum:"1"`
	By          string    `json:"by" enum:"buyer,seller"`
	Amount      int64     `json:"amount" minimum:"1" doc:"Cents."`
	Message     *string   `json:"message"`
	SentByAgent bool      `json:"sentByAgent" doc:"The round was made by an agent key acting for its verified owner."`
	CreatedAt   time.Time `json:"createdAt"`
	// ContentTrust marks the other party's words to an agent's caller.
	ContentTrust *ContentTrust `json:"contentTrust,omitempty" doc:"To an agent key's caller, on a round's message the other party wrote: it is untrusted input (CONTRACT section 16)."`
}

// Offer is an offer as its viewer sees it (CONTRACT.md section 8).
type Offer struct {
	ID                   string        `json:"id"`
	ListingID            string        `json:"listingId"`
	BuyerID              string        `json:"buyerId"`
	SellerID             string        `json:"sellerId"`
	Status               string        `json:"status" enum:"pending,countered,accepted,rejected,withdrawn,expired"`
	OfferPrice           int64         `json:"offerPrice" minimum:"1" doc:"The buyer's first amount, cents."`
	CounterPrice         *int64        `json:"counterPrice" doc:"The latest counter by either party, cents; null before any."`
	CurrentPrice         int64         `json:"currentPrice" doc:"The amount on the table now, cents."`
	AgreedPrice          *int64        `json:"agreedPrice" doc:"Set on acceptance: the price a purchase with 'offerId' pays for the item."`
	Message              *string       `json:"message" doc:"The latest round's message."`
	Round                int           `json:"round" minimum:"1" doc:"Amounts put on the table so far; the first offer is round 1."`
	MaxRounds            int           `json:"maxRounds" minimum:"1" doc:"The admin setting 'offers.max_rounds' when the offer was made."`
	AwaitingResponseFrom *string       `json:"awaitingResponseFrom" enum:"buyer,seller" doc:"The party who may accept, reject or counter; null once the offer is decided."`
	ExpiresAt            time.Time     `json:"expiresAt" doc:"When the current round runs out (48 hours after it was made); for an accepted offer, the end of the 48 hours to buy it with 'offerId'."`
	AutoPurchaseOnAccept bool          `json:"autoPurchaseOnAccept"`
	PaymentMethodID      *string       `json:"paymentMethodId" doc:"The card the automatic purchase uses; null for the buyer's default."`
	ShippingAddressID    *string       `json:"shippingAddressId" doc:"The saved address the automatic purchase ships to; null for the buyer's default."`
	OrderID              *string       `json:"orderId" doc:"The order that bought the accepted offer."`
	SentByAgent          bool          `json:"sentByAgent" doc:"The offer was made by an agent key acting for its verified owner."`
	Rounds               []OfferRound  `json:"rounds" doc:"The negotiation, oldest first."`
	FloorPrice           *int64        `json:"floorPrice,omitempty" doc:"Seller views only: the listing's private floor price."`
	CostBasis            *int64        `json:"costBasis,omitempty" doc:"Seller views only: the listing's private cost basis."`
	CreatedAt            time.Time     `json:"createdAt"`
	UpdatedAt            time.Time     `json:"updatedAt"`
	ContentTrust         *ContentTrust `json:"contentTrust,omitempty" doc:"To an agent key's caller, when 'message' was written by the other party: it is untrusted input (CONTRACT section 16)."`
}

// OfferOf is o as viewer sees it. To an agent key's caller, each message
// the other party wrote carries ContentTrust, a round's by its author, the
// offer's own message (its latest round's) as that round's; the seller's
// private prices come from the offers service, which fills them for the
// seller alone.
func OfferOf(o *offers.Offer, viewer market.Actor) *Offer {
	author := func(by offers.Party) string {
		if by == offers.Buyer {
			return o.BuyerID
		}
		return o.SellerID
	}
	trust := func(by offers.Party, text string) *ContentTrust {
		if text == "" {
			return nil
		}
		return ForeignTrust(viewer, author(by), TrustOffer, moderation.TrustField{Name: "message", Text: text})
	}
	rounds := make([]OfferRound, len(o.Rounds))
	for i, r := range o.Rounds {
		rounds[i] = OfferRound{Round: r.Round, By: string(r.By), Amount: r.Amount, Message: strOrNil(r.Message),
			SentByAgent: r.SentByAgent, CreatedAt: r.CreatedAt, ContentTrust: trust(r.By, r.Message)}
	}
	var msgTrust *ContentTrust
	for i := len(o.Rounds) - 1; i >= 0 && o.Message != ""; i-- {
		if o.Rounds[i].Message == o.Message {
			msgTrust = rounds[i].ContentTrust
			break
		}
	}
	return &Offer{ContentTrust: msgTrust, ID: o.ID, ListingID: o.ListingID, BuyerID: o.BuyerID, SellerID: o.SellerID,
		Status: string(o.Status), OfferPrice: o.OfferPrice, CounterPrice: o.CounterPrice, CurrentPrice: o.CurrentPrice,
		AgreedPrice: o.AgreedPrice, Message: strOrNil(o.Message), Round: o.Round, MaxRounds: o.MaxRounds,
		AwaitingResponseFrom: strOrNil(string(o.Awaiting)), ExpiresAt: o.ExpiresAt, AutoPurchaseOnAccept: o.AutoPurchase,
		PaymentMethodID: strOrNil(o.PaymentMethodID), ShippingAddressID: strOrNil(o.ShippingAddressID),
		OrderID: strOrNil(o.OrderID), SentByAgent: o.SentByAgent, Rounds: rounds, FloorPrice: o.FloorPrice,
		CostBasis: o.CostBasis, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
}

// Offers are the negotiation's operations.
type Offers struct{ Service *offers.Service }

func offerCaller(c *Caller) offers.Caller {
	return offers.Caller{Actor: c.Actor, User: c.User, Key: c.Key}
}

// Create makes an offer as the buyer.
func (x Offers) Create(ctx context.Context, c *Caller, in offers.CreateInput) (*Offer, error) {
	return offerView(c)(x.Service.Create(ctx, offerCaller(c), in))
}

// Get reads one of the caller's offers.
func (x Offers) Get(ctx context.Context, c *Caller, id string) (*Offer, error) {
	return offerView(c)(x.Service.Get(ctx, offerCaller(c), id))
}

// Answer accepts, rejects or counters an offer awaiting the caller.
func (x Offers) Answer(ctx context.Context, c *Caller, id string, a offers.Answer) (*Offer, error) {
	return offerView(c)(x.Service.Respond(ctx, offerCaller(c), id, a))
}

// Withdraw takes the buyer's open offer back.
func (x Offers) Withdraw(ctx context.Context, c *Caller, id string) (*Offer, error) {
	return offerView(c)(x.Service.Withdraw(ctx, offerCaller(c), id))
}

// ActiveOn is the caller's open offer on a listing.
func (x Offers) ActiveOn(ctx context.Context, c *Caller, listingID string) (*Offer, error) {
	return offerView(c)(x.Service.ActiveOn(ctx, offerCaller(c), listingID))
}

// List is a page of the caller's offers as buyer or seller, newest first,
// and how many there are in all.
func (x Offers) List(ctx context.Context, c *Caller, role offers.Party, status string, limit, offset int) ([]Offer, int, error) {
	os, total, err := x.Service.List(ctx, offerCaller(c), role, status, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Offer, len(os))
	for i := range os {
		out[i] = *OfferOf(&os[i], c.Actor)
	}
	return out, total, nil
}

// offerView turns a service's answer into c's view of it.
func offerView(c *Caller) func(*offers.Offer, error) (*Offer, error) {
	return func(o *offers.Offer, err error) (*Offer, error) {
		if err != nil {
			return nil, err
		}
		return OfferOf(o, c.Actor), nil
	}
}

// OfferOps are the negotiation's operations.
func (o Ops) OfferOps() Offers { return Offers{Service: o.Offers} }
