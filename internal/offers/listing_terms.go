package offers

import (
	"context"
	"strconv"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/market"
)

// Offers follow their listing (CONTRACT.md section 8): an offer is below the
// list price, on a listing that is on sale. ListingChanged holds that at
// every change of a listing; stale refuses an answer to an offer the rule
// no longer allows, should one ever be found.

// Reasons an offer.expired event gives besides "timeout" and
// "listing_sold": the listing's price came down to or below the amount on
// the table, or the listing left sale (ReasonOffSale + its status).
const (
	ReasonPriceChanged = "price_changed"
	ReasonOffSale      = "listing_"
)

// ListingChanged ends the open offers a change to listing l leaves no room
// for, in the transaction that changed it (after l is written), as a sale
// ends the others (ListingSold): status expired, the hold on the buyer's
// caps released, offer.expired to both parties with the reason.
//
//   - A listing that left sale (archived, deleted, removed, held) can take
//     no answer and no purchase: every open offer ends, accepted ones
//     waiting for their purchase too (reason listing_<status>).
//   - On an active listing, an offer waiting for an answer whose amount on
//     the table is at or above the price now ends (reason price_changed).
//     An accepted offer stays: its purchase never pays more than the price
//     now (orders' price rule takes the lower of the two).
//   - A reserved listing (a checkout holds it) and a sold one (ListingSold
//     settled it) keep theirs.
func ListingChanged(ctx context.Context, tx PurchaseTx, l *listings.Listing, now time.Time) error {
	if l.Status == listings.StatusReserved || l.Status == listings.StatusSold {
		return nil
	}
	open, err := tx.OpenOffersOn(ctx, l.ID)
	if err != nil {
		return err
	}
	for i := range open {
		o := &open[i]
		reason := ReasonOffSale + string(l.Status)
		if l.Status == listings.StatusActive {
			if o.Status == StatusAccepted || o.CurrentPrice < l.Price {
				continue
			}
			reason = ReasonPriceChanged
		}
		if err := expire(ctx, tx, o, now, reason); err != nil {
			return err
		}
	}
	return nil
}

// stale refuses an answer to an offer whose amount on the table is no
// longer below the list price: the offer is over (OFFER_EXPIRED, as a price
// cut that ended it first answers), not merely in the wrong state: nothing
// the caller can do revives it, and a new offer below the price is the way
// on.
func stale(o *Offer, l *listings.Listing) error {
	if o.CurrentPrice < l.Price {
		return nil
	}
	return market.Errorf(market.CodeOfferExpired, "the listing's price is now %s cents, at or below the offer's %s: the offer ended; make a new one below the price",
		strconv.FormatInt(l.Price, 10), strconv.FormatInt(o.CurrentPrice, 10)).
		WithDetails(map[string]any{"reason": ReasonPriceChanged, "price": l.Price, "current_price": o.CurrentPrice})
}
