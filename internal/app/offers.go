package app

import (
	"context"
	"errors"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/events"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/offers"
	"marketplace/internal/orders"
)

// offerPurchases connects the offers area to the one purchase path: an
// accepted offer is bought by its buyer (the agent key that made the
// buyer's last commitment, or the human) at the agreed price.
type offerPurchases struct {
	accounts *accounts.Service
	agents   *agents.Service
	orders   *orders.Service
}

// offerRules are the offers area's rules that the listings and orders areas
// run in their own transactions: a listing's change ends the offers it
// leaves no room for, a purchase with offerId uses the offer. They are the
// offers package's functions over the shared transaction, so they need no
// service, and the listings and orders services take them before the
// offers service (which buys through orders) exists.
type offerRules struct{ clock market.Clock }

var (
	_ offers.Purchaser      = (*offerPurchases)(nil)
	_ offers.Fees           = (*orders.Service)(nil)
	_ orders.Offers         = offerRules{}
	_ listings.OffersFollow = offerRules{}.ListingChanged
)

// BuyOffer buys an offer with its payment method and address (the buyer's
// defaults when it names none), running accept first in the purchase's
// transaction. The offer id is the purchase's idempotency key, so the
// purchase is never made twice for one offer.
func (p *offerPurchases) BuyOffer(ctx context.Context, o *offers.Offer, accept func(context.Context, offers.Tx) error) (string, error) {
	u, err := p.accounts.User(ctx, o.BuyerID)
	if err != nil {
		return "", err
	}
	b := orders.Buyer{Actor: market.Actor{Type: market.ActorUser, UserID: u.ID}, User: u}
	if o.BuyerKeyID != "" {
		k, err := p.agents.Key(ctx, o.BuyerKeyID)
		if err != nil {
			return "", err
		}
		if k.Status != agents.KeyActive {
			return "", market.Errorf(market.CodeAgentFrozen, "the buyer's agent key is %s", k.Status)
		}
		b.Actor, b.Key = market.Actor{Type: market.ActorAgent, UserID: u.ID, KeyID: k.ID}, k
	}
	agreed := *o.AgreedPrice
	in := orders.PurchaseInput{ListingID: o.ListingID, MaxPrice: &agreed, OfferID: o.ID,
		PaymentMethodID: o.PaymentMethodID, ShippingAddressID: o.ShippingAddressID,
		Within: func(ctx context.Context, tx orders.Tx) error {
			// One store transaction serves every area: the purchase's is
			// the offers area's too.
			otx, ok := tx.(offers.Tx)
			if !ok {
				return market.Internal(errNotOffersTx)
			}
			return accept(ctx, otx)
		}}
	ctx = market.WithIdempotencyKey(context.WithoutCancel(ctx), "offer:"+o.ID)
	ord, err := p.orders.Purchase(ctx, b, in)
	if ord != nil && err == nil {
		return ord.ID, nil
	}
	return "", err
}

var errNotOffersTx = errors.New("app: the transaction does not serve the offers area")

// AgreedPrice, Used and ListingSold are the purchase path's view of offers,
// run in the purchase's transaction (orders.Tx embeds offers.PurchaseTx).
func (p offerRules) AgreedPrice(ctx context.Context, tx orders.Tx, offerID, buyerID, listingID string, now time.Time) (int64, error) {
	return offers.AgreedPrice(ctx, tx, offerID, buyerID, listingID, now)
}

func (p offerRules) Used(ctx context.Context, tx orders.Tx, offerID, orderID string) error {
	return offers.Used(ctx, tx, offerID, orderID, p.clock.Now())
}

func (p offerRules) ListingSold(ctx context.Context, tx orders.Tx, listingID string) error {
	return offers.ListingSold(ctx, tx, listingID, p.clock.Now())
}

// ListingChanged is the listings area's offers hook (listings.OffersFollow):
// the offers a change to a listing leaves no room for end, in the change's
// transaction.
func (p offerRules) ListingChanged(ctx context.Context, tx events.Tx, l *listings.Listing) error {
	otx, ok := tx.(offers.PurchaseTx)
	if !ok {
		return market.Internal(errNotOffersTx)
	}
	return offers.ListingChanged(ctx, otx, l, p.clock.Now())
}
