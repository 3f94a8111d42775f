package offers

import (
	"context"
	"strconv"

	"marketplace/internal/messaging"
)

// action names what a round did, for the message it posts.
type action string

const (
	actOffer    action = "offer"
	actCounter  action = "counter"
	actAccept   action = "accept"
	actReject   action = "reject"
	actWithdraw action = "withdraw"
)

// postRound puts a round into the buyer's thread on the listing (CONTRACT.md
// section 8: offers are posted into the thread), as a message of type offer
// from the party that made it, with the figures in its structured fields.
// A buyer's offer under the floor is posted as made: its rejection says
// nothing of the floor, and the thread says no more.
func postRound(ctx context.Context, tx Tx, act action, o *Offer, r Round) error {
	sender := o.BuyerID
	if r.By == Seller {
		sender = o.SellerID
	}
	fields := map[string]any{"offerId": o.ID, "action": string(act), "round": r.Round, "by": string(r.By)}
	var text string
	switch act {
	case actOffer:
		text = "Offer: " + dollars(r.Amount)
		fields["amount"] = r.Amount
	case actCounter:
		text = "Counter-offer: " + dollars(r.Amount)
		fields["amount"] = r.Amount
	case actAccept:
		text = "Offer accepted at " + dollars(r.Amount)
		fields["amount"] = r.Amount
	case actReject:
		text = "Offer declined"
	case actWithdraw:
		text = "Offer withdrawn"
	}
	if r.Message != "" {
		text += "\n\n" + r.Message
	}
	return messaging.Auto(ctx, tx, r.CreatedAt, messaging.AutoMessage{
		ListingID: o.ListingID, BuyerID: o.BuyerID, SellerID: o.SellerID, SenderID: sender,
		Type: messaging.TypeOffer, Content: text, Fields: fields, SentByAgent: r.SentByAgent,
	})
}

// dollars writes cents as "$12.34".
func dollars(cents int64) string {
	s := strconv.FormatInt(cents%100, 10)
	if len(s) < 2 {
		s = "0" + s
	}
	return "$" + strconv.FormatInt(cents/100, 10) + "." + s
}
