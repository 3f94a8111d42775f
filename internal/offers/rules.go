package offers

import (
	"context"
	"strconv"
	"time"

	"marketplace/internal/agents"
	"marketplace/internal/events"
	"marketplace/internal/listings"
	"marketplace/internal/market"
)

// CreateInput is a new offer in domain terms.
type CreateInput struct {
	ListingID         string
	OfferPrice        *int64
	Message           string
	AutoPurchase      *bool // default true
	PaymentMethodID   string
	ShippingAddressID string
}

// Action is an answer to an offer.
type Action string

const (
	ActionAccept  Action = "accept"
	ActionReject  Action = "reject"
	ActionCounter Action = "counter"
)

// Answer is an accept, reject or counter by the party asked.
type Answer struct {
	Action       Action
	CounterPrice *int64 // counter only
	Message      string
}

func checkAmount(c *market.Check, field string, v *int64, required bool) {
	if v == nil {
		c.Require(!required, field, "is required: an amount in cents")
		return
	}
	c.Require(*v >= 1 && *v <= MaxAmount, field, "must be an amount in cents from 1 to "+strconv.FormatInt(MaxAmount, 10))
}

func (in *CreateInput) check() error {
	var c market.Check
	c.Require(market.ValidID(in.ListingID), "listing_id", "must be a listing id")
	checkAmount(&c, "offer_price", in.OfferPrice, true)
	in.Message = c.Text("message", in.Message, MaxMessage, false)
	c.Require(in.PaymentMethodID == "" || market.ValidID(in.PaymentMethodID), "payment_method_id", "must be the id of one of your saved payment methods")
	c.Require(in.ShippingAddressID == "" || market.ValidID(in.ShippingAddressID), "shipping_address_id", "must be the id of one of your saved addresses")
	return c.Err()
}

// may refuses an agent that lacks the scope of its side (buy for the buyer,
// sell for the seller) or whose owner is not verified.
func may(c Caller, side Party) error {
	if !c.Actor.IsAgent() {
		return nil
	}
	op := agents.OpBuy
	if side == Seller {
		op = agents.OpSell
	}
	if c.Key != nil {
		if err := agents.Require(c.Actor, c.Key.Scope, op); err != nil {
			return err
		}
	}
	if c.User == nil || !c.User.IdentityVerified {
		return market.Errorf(market.CodeOwnerNotVerified, "the agent's owner must verify their identity before the agent can negotiate")
	}
	return nil
}

// listing loads the offer's listing, which must be on sale.
func listing(ctx context.Context, tx Tx, id string) (*listings.Listing, error) {
	l, err := tx.ListingByID(ctx, id)
	if market.CodeOf(err) == market.CodeNotFound || err == nil && (l.Status == listings.StatusDeleted || l.Status == listings.StatusPendingAI) {
		return nil, market.Errorf(market.CodeListingNotFound, "listing not found")
	}
	if err != nil {
		return nil, err
	}
	switch l.Status {
	case listings.StatusActive:
		return l, nil
	case listings.StatusSold:
		return nil, market.Errorf(market.CodeListingSold, "the listing was sold")
	}
	return nil, market.Errorf(market.CodeListingNotAvailable, "the listing is %s and takes no offers now", l.Status).
		WithDetails(map[string]any{"status": string(l.Status)})
}

// buyerAmount checks an amount the buyer puts on the table: below the list
// price (at or above it, buy instead) and at least the listing's minimum.
func buyerAmount(l *listings.Listing, field string, amount int64) error {
	if amount >= l.Price {
		return market.Invalid(market.FieldError{Field: field,
			Message: "must be below the listing's price of " + strconv.FormatInt(l.Price, 10) + " cents; buy the listing instead"})
	}
	if l.MinOfferAmount != nil && amount < *l.MinOfferAmount {
		return market.Errorf(market.CodeBelowMinimum, "the seller takes offers of at least %d cents", *l.MinOfferAmount).
			WithDetails(map[string]any{"min_offer_amount": *l.MinOfferAmount})
	}
	return nil
}

// underFloor reports whether a buyer's amount is below the seller's private
// floor: the offer is rejected at once, and nothing says why.
func underFloor(l *listings.Listing, amount int64) bool {
	return l.FloorPrice != nil && amount < *l.FloorPrice
}

// reserve sets what the offer holds of an agent buyer's caps for amount (the
// amount plus the buyer's fee) and checks it against the caps and the
// owner's category restrictions, as the purchase will, counting the owner's
// other reservations but not this offer's own. A human buyer
// reserves nothing (a human's purchases are not capped).
func (s *Service) reserve(ctx context.Context, tx Tx, c Caller, o *Offer, l *listings.Listing, amount int64, p pricing, now time.Time) error {
	if !c.Actor.IsAgent() {
		o.BuyerKeyID, o.Reserved = "", 0
		return nil
	}
	total := total(p.fees, l, amount)
	if _, err := agents.CheckSpend(ctx, tx, now, agents.SpendRequest{OwnerID: c.User.ID, Key: c.Key, Amount: total,
		InCategory: func(r string) bool { return p.tax.Restricts(r, l) }, ExcludeOfferID: o.ID}); err != nil {
		return err
	}
	o.BuyerKeyID, o.Reserved = c.Actor.KeyID, total
	return nil
}

// feeRule is what a purchase at an item price with a shipping cost charges.
type feeRule func(itemPrice, shippingCost int64) int64

// pricing is what an agent's offer is checked against, read before the
// transaction opens: the fee rule and the category tree in force.
type pricing struct {
	fees feeRule
	tax  *listings.Taxonomy
}

// pricing reads the fee rule and the category tree.
func (s *Service) pricing(ctx context.Context) (pricing, error) {
	fees, err := s.fees(ctx)
	if err != nil {
		return pricing{}, err
	}
	p := pricing{fees: fees}
	if s.opts.Taxonomy != nil {
		if p.tax, err = s.opts.Taxonomy.Taxonomy(ctx); err != nil {
			return pricing{}, err
		}
	}
	return p, nil
}

// fees reads the fee rule in force, before any transaction opens.
func (s *Service) fees(ctx context.Context) (feeRule, error) {
	if s.opts.Fees == nil {
		return func(item, ship int64) int64 { return item + ship }, nil
	}
	return s.opts.Fees.BuyerTotals(ctx)
}

// total is what buying the listing at amount would charge: the amount, the
// listing's flat shipping cost (a calculated rate is not known before a
// quote) and the buyer's fee.
func total(fees feeRule, l *listings.Listing, amount int64) int64 {
	var ship int64
	if (l.ShippingType == listings.ShipFlatRate || l.ShippingType == listings.ShipBoth) && l.ShippingCost != nil {
		ship = *l.ShippingCost
	}
	return fees(amount, ship)
}

func (s *Service) maxRounds(ctx context.Context) (int, error) {
	if s.opts.Settings == nil {
		return DefaultMaxRounds, nil
	}
	return s.opts.Settings.MaxRounds(ctx)
}

// onRound posts the round into the buyer's thread on the listing and runs
// the OnRound hook, both in the round's transaction.
func (s *Service) onRound(ctx context.Context, tx Tx, act action, o *Offer, r Round) error {
	if err := postRound(ctx, tx, act, o, r); err != nil {
		return err
	}
	if s.opts.OnRound == nil {
		return nil
	}
	return s.opts.OnRound(ctx, tx, o, r)
}

func record(ctx context.Context, tx events.Tx, now time.Time, actor market.Actor, typ string, o *Offer, extra map[string]any) error {
	// The ids involved and a snapshot of the offer (CONTRACT.md section 12);
	// never the seller's private figures.
	data := map[string]any{"offer_id": o.ID, "listing_id": o.ListingID, "buyer_id": o.BuyerID, "seller_id": o.SellerID,
		"status": string(o.Status), "round": o.Round, "max_rounds": o.MaxRounds, "amount": o.CurrentPrice,
		"offer_price": o.OfferPrice, "current_price": o.CurrentPrice, "awaiting_response_from": string(o.Awaiting),
		"expires_at": o.ExpiresAt, "sent_by_agent": o.SentByAgent}
	if o.AgreedPrice != nil {
		data["agreed_price"] = *o.AgreedPrice
	}
	for k, v := range extra {
		data[k] = v
	}
	return events.Record(ctx, tx, now, actor, typ, "offer", o.ID, data, notActing(o, actor)...)
}

// notActing are the offer's parties other than the one who acted: both
// when the service or an admin acted (CONTRACT.md section 12).
func notActing(o *Offer, actor market.Actor) []string {
	switch actor.UserID {
	case o.BuyerID:
		return []string{o.SellerID}
	case o.SellerID:
		return []string{o.BuyerID}
	}
	return []string{o.BuyerID, o.SellerID}
}

// Create makes an offer (pending, waiting for the seller), or one rejected
// at once when it is under the seller's private floor.
func (s *Service) Create(ctx context.Context, c Caller, in CreateInput) (*Offer, error) {
	// The caller first, as the purchase checks it: a key without buy scope
	// (or an unverified owner's) learns that whatever its body holds.
	if err := may(c, Buyer); err != nil {
		return nil, err
	}
	if err := in.check(); err != nil {
		return nil, err
	}
	rounds, err := s.maxRounds(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.pricing(ctx)
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	amount := *in.OfferPrice
	o := &Offer{ID: market.NewID(), ListingID: in.ListingID, BuyerID: c.User.ID, Status: StatusPending,
		OfferPrice: amount, CurrentPrice: amount, Message: in.Message, Round: 1, MaxRounds: rounds, Awaiting: Seller,
		ExpiresAt: now.Add(RoundTTL), AutoPurchase: in.AutoPurchase == nil || *in.AutoPurchase,
		PaymentMethodID: in.PaymentMethodID, ShippingAddressID: in.ShippingAddressID, SentByAgent: c.Actor.IsAgent(),
		CreatedAt: now, UpdatedAt: now}
	r := Round{Round: 1, By: Buyer, Amount: amount, Message: in.Message, SentByAgent: c.Actor.IsAgent(), CreatedAt: now}
	o.Rounds = []Round{r}
	err = s.store.InTx(ctx, func(tx Tx) error {
		l, err := listing(ctx, tx, in.ListingID)
		if err != nil {
			return err
		}
		o.SellerID = l.SellerID
		if l.SellerID == c.User.ID {
			return market.Errorf(market.CodeCannotBuyOwnListing, "you cannot make an offer on your own listing")
		}
		if !l.AcceptOffers {
			return market.Errorf(market.CodeOffersDisabled, "the seller does not take offers on this listing; buy it at its price")
		}
		if err := buyerAmount(l, "offer_price", amount); err != nil {
			return err
		}
		if err := purchaseChoices(ctx, tx, c.User.ID, &in); err != nil {
			return err
		}
		if prev, err := tx.OpenOfferOf(ctx, c.User.ID, l.ID); err == nil {
			if now.Before(prev.ExpiresAt) {
				return errActive()
			}
			// Its time ran out before the sweep came: it ends now.
			if err := expire(ctx, tx, prev, now, "timeout"); err != nil {
				return err
			}
		} else if market.CodeOf(err) != market.CodeNotFound {
			return err
		}
		if err := s.reserve(ctx, tx, c, o, l, amount, p, now); err != nil {
			return err
		}
		if underFloor(l, amount) {
			o.Status, o.Awaiting, o.Reserved = StatusRejected, "", 0
		}
		if err := tx.CreateOffer(ctx, o); err != nil {
			return err
		}
		if err := s.onRound(ctx, tx, actOffer, o, r); err != nil {
			return err
		}
		if err := record(ctx, tx, now, c.Actor, "offer.received", o, map[string]any{"message": o.Message}); err != nil {
			return err
		}
		if o.Status == StatusRejected {
			return record(ctx, tx, now, market.System, "offer.rejected", o, nil)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// purchaseChoices checks that the card and address an offer names for its
// automatic purchase are the buyer's own.
func purchaseChoices(ctx context.Context, tx Tx, buyerID string, in *CreateInput) error {
	var c market.Check
	if in.PaymentMethodID != "" {
		m, err := tx.PaymentMethodByID(ctx, in.PaymentMethodID)
		if err != nil && market.CodeOf(err) != market.CodeNotFound {
			return err
		}
		c.Require(err == nil && m.UserID == buyerID, "payment_method_id", "is not one of your saved payment methods")
	}
	if in.ShippingAddressID != "" {
		saved, err := tx.Addresses(ctx, buyerID)
		if err != nil {
			return err
		}
		found := false
		for _, a := range saved {
			found = found || a.ID == in.ShippingAddressID
		}
		c.Require(found, "shipping_address_id", "is not one of your saved addresses")
	}
	return c.Err()
}

func errActive() error {
	return market.Errorf(market.CodeActiveOfferExists, "you already have an open offer on this listing; counter or withdraw it")
}

// participant loads an offer the caller is a party to (NOT_FOUND for
// anyone else) and returns the caller's side.
func participant(ctx context.Context, tx PurchaseTx, c Caller, id string) (*Offer, Party, error) {
	if !market.ValidID(id) {
		return nil, "", market.NotFound("offer")
	}
	o, err := tx.OfferByID(ctx, id)
	if err != nil {
		return nil, "", err
	}
	role := o.Role(c.User.ID)
	if role == "" {
		return nil, "", market.NotFound("offer")
	}
	return o, role, nil
}

// answerable refuses an answer the offer cannot take now.
func answerable(o *Offer, role Party, now time.Time) error {
	switch {
	case o.Status == StatusExpired, (o.Status == StatusPending || o.Status == StatusCountered) && !now.Before(o.ExpiresAt):
		return market.Errorf(market.CodeOfferExpired, "the offer expired at %s", o.ExpiresAt.Format(time.RFC3339)).
			WithDetails(map[string]any{"expires_at": o.ExpiresAt})
	case o.Status != StatusPending && o.Status != StatusCountered:
		return market.Errorf(market.CodeInvalidState, "the offer is %s and takes no more answers", o.Status).
			WithDetails(map[string]any{"status": string(o.Status)})
	case o.Awaiting != role:
		return market.Errorf(market.CodeForbidden, "the offer waits for the %s's answer", o.Awaiting).
			WithDetails(map[string]any{"awaiting_response_from": string(o.Awaiting)})
	}
	return nil
}

func (a *Answer) check() error {
	var c market.Check
	switch a.Action {
	case ActionAccept, ActionReject:
	case ActionCounter:
		checkAmount(&c, "counter_price", a.CounterPrice, true)
	default:
		c.Add("action", "must be accept, reject or counter")
	}
	a.Message = c.Text("message", a.Message, MaxMessage, false)
	return c.Err()
}

// Respond is the answer of the party asked: accept, reject or counter. An
// acceptance with autoPurchaseOnAccept buys at once (acceptAndBuy); a
// purchase refused for the buyer's reasons leaves the offer accepted, to be
// bought with offerId within RoundTTL.
func (s *Service) Respond(ctx context.Context, c Caller, id string, a Answer) (*Offer, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	p, err := s.pricing(ctx)
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	// Locks are taken listing first, then offer, as the purchase path takes
	// them (it settles a sale by moving the listing, then expiring its
	// offers): the other order deadlocks an answer against a purchase of
	// the listing. An offer's listing never changes, so it is read first.
	var pre *Offer
	if market.ValidID(id) {
		if pre, err = s.store.Read().OfferByID(ctx, id); err != nil {
			pre = nil
		}
	}
	// Only the party asked, on an offer that waits for it, starts a purchase:
	// anyone else is refused by the answer's own checks below.
	if a.Action == ActionAccept && pre != nil && pre.AutoPurchase && s.opts.Purchaser != nil &&
		pre.Role(c.User.ID) != "" && answerable(pre, pre.Role(c.User.ID), now) == nil {
		if o, done, err := s.acceptAndBuy(ctx, c, pre, a.Message, p, now); done {
			return o, err
		}
	}
	var o *Offer
	err = s.store.InTx(ctx, func(tx Tx) error {
		var role Party
		var err error
		if o, role, err = s.answering(ctx, tx, c, pre, id, now); err != nil {
			return err
		}
		switch a.Action {
		case ActionReject:
			return s.reject(ctx, tx, c, o, role, a.Message, now)
		case ActionAccept:
			return s.accept(ctx, tx, c, o, role, a.Message, p, now)
		}
		return s.counter(ctx, tx, c, o, role, *a.CounterPrice, a.Message, p, now)
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// answering locks the offer's listing (pre, read before the transaction,
// names it), then the offer, and checks that the caller may answer it now.
func (s *Service) answering(ctx context.Context, tx Tx, c Caller, pre *Offer, id string, now time.Time) (*Offer, Party, error) {
	if pre != nil {
		if _, err := tx.ListingByID(ctx, pre.ListingID); err != nil && market.CodeOf(err) != market.CodeListingNotFound &&
			market.CodeOf(err) != market.CodeNotFound {
			return nil, "", err
		}
	}
	o, role, err := participant(ctx, tx, c, id)
	if err != nil {
		return nil, "", err
	}
	if err := may(c, role); err != nil {
		return nil, "", err
	}
	if err := answerable(o, role, now); err != nil {
		return nil, "", err
	}
	return o, role, nil
}

// acceptAndBuy accepts an offer with autoPurchaseOnAccept inside the
// purchase's own transaction, so the acceptance commits with the
// purchase's reservation of the listing or not at all. Another buyer's
// purchase of the listing then comes either first (the acceptance is
// refused as the listing is taken, and the sale expires the offer) or after
// (that purchase is refused): the answer is what happened, never an
// acceptance the sale then undoes. The purchase pays with the offer's card
// and address (or the buyer's defaults) as the buyer whose commitment the
// acceptance completes: the seller accepting the buyer's amount, or the
// buyer (in person or by this agent key) accepting the seller's counter.
//
// done is false when the purchase was refused for reasons of its own (the
// buyer's caps or card, a calculated shipping rate to quote, a key no longer
// active) and nothing committed: the caller then accepts alone, and the
// buyer has RoundTTL to buy with offerId. A charge refused after the
// reservation committed leaves the offer accepted, and that is the answer.
func (s *Service) acceptAndBuy(ctx context.Context, c Caller, pre *Offer, msg string, p pricing, now time.Time) (*Offer, bool, error) {
	buyer := *pre
	if pre.Role(c.User.ID) == Buyer {
		buyer.BuyerKeyID = c.Actor.KeyID // "" for the human
	}
	agreed := pre.CurrentPrice
	buyer.AgreedPrice = &agreed
	var refused error // the acceptance's own refusal: the answer
	ran := false
	orderID, err := s.opts.Purchaser.BuyOffer(ctx, &buyer, func(ctx context.Context, tx Tx) error {
		ran, refused = true, nil // a grouped transaction may run this twice
		o, role, err := s.answering(ctx, tx, c, pre, pre.ID, now)
		if err == nil && o.CurrentPrice != agreed {
			err = market.Errorf(market.CodeInvalidState, "the offer changed meanwhile; read it again")
		}
		if err == nil {
			err = s.accept(ctx, tx, c, o, role, msg, p, now)
		}
		refused = err
		return err
	})
	switch {
	case refused != nil:
		return nil, true, refused
	case !ran:
		// Refused before its transaction (the buyer's key no longer
		// active, the owner unverified): the acceptance alone.
		return nil, false, nil
	}
	if err != nil {
		s.opts.Log.Info("automatic purchase of an accepted offer did not go through", "offer_id", pre.ID,
			"code", string(market.CodeOf(err)))
	}
	fresh, rerr := s.store.Read().OfferByID(ctx, pre.ID)
	if rerr != nil {
		return nil, true, rerr
	}
	switch {
	case err == nil:
		if fresh.OrderID == "" && orderID != "" {
			fresh.OrderID = orderID // paid but not settled yet: the order is on its way
		}
		return fresh, true, nil
	case fresh.Status == StatusAccepted:
		// The acceptance committed with the reservation and the charge
		// failed (or waits for the owner's approval): the offer stays
		// accepted, to be bought with offerId.
		return fresh, true, nil
	}
	return nil, false, nil
}

func (s *Service) reject(ctx context.Context, tx Tx, c Caller, o *Offer, role Party, msg string, now time.Time) error {
	o.Status, o.Awaiting, o.Reserved, o.UpdatedAt = StatusRejected, "", 0, now
	if msg != "" {
		o.Message = msg
	}
	if err := tx.UpdateOffer(ctx, o); err != nil {
		return err
	}
	if err := s.onRound(ctx, tx, actReject, o, Round{Round: o.Round, By: role, Message: msg, SentByAgent: c.Actor.IsAgent(), CreatedAt: now}); err != nil {
		return err
	}
	return record(ctx, tx, now, c.Actor, "offer.rejected", o, map[string]any{"by": string(role), "message": msg})
}

func (s *Service) accept(ctx context.Context, tx Tx, c Caller, o *Offer, role Party, msg string, p pricing, now time.Time) error {
	l, err := listing(ctx, tx, o.ListingID)
	if err != nil {
		return err
	}
	if err := stale(o, l); err != nil {
		return err
	}
	if role == Buyer { // the buyer commits to the seller's counter
		if err := s.reserve(ctx, tx, c, o, l, o.CurrentPrice, p, now); err != nil {
			return err
		}
	}
	agreed := o.CurrentPrice
	o.Status, o.AgreedPrice, o.Awaiting, o.ExpiresAt, o.UpdatedAt = StatusAccepted, &agreed, "", now.Add(RoundTTL), now
	if msg != "" {
		o.Message = msg
	}
	if err := tx.UpdateOffer(ctx, o); err != nil {
		return err
	}
	if err := s.onRound(ctx, tx, actAccept, o, Round{Round: o.Round, By: role, Amount: agreed, Message: msg, SentByAgent: c.Actor.IsAgent(), CreatedAt: now}); err != nil {
		return err
	}
	return record(ctx, tx, now, c.Actor, "offer.accepted", o, map[string]any{"by": string(role), "agreed_price": agreed})
}

func (s *Service) counter(ctx context.Context, tx Tx, c Caller, o *Offer, role Party, amount int64, msg string, p pricing, now time.Time) error {
	if o.Round >= o.MaxRounds {
		return market.Errorf(market.CodeMaxRoundsReached, "the offer has had its %d rounds; accept or reject it", o.MaxRounds).
			WithDetails(map[string]any{"max_rounds": o.MaxRounds})
	}
	l, err := listing(ctx, tx, o.ListingID)
	if err != nil {
		return err
	}
	if err := stale(o, l); err != nil {
		return err
	}
	if amount >= l.Price {
		return market.Invalid(market.FieldError{Field: "counter_price",
			Message: "must be below the listing's price of " + strconv.FormatInt(l.Price, 10) + " cents"})
	}
	other := Seller
	if role == Buyer {
		if err := buyerAmount(l, "counter_price", amount); err != nil {
			return err
		}
		if err := s.reserve(ctx, tx, c, o, l, amount, p, now); err != nil {
			return err
		}
	} else {
		other = Buyer
	}
	r := Round{Round: o.Round + 1, By: role, Amount: amount, Message: msg, SentByAgent: c.Actor.IsAgent(), CreatedAt: now}
	price := amount
	o.Round, o.Rounds = r.Round, append(o.Rounds, r)
	o.Status, o.CounterPrice, o.CurrentPrice, o.Message = StatusCountered, &price, amount, msg
	o.Awaiting, o.ExpiresAt, o.UpdatedAt = other, now.Add(RoundTTL), now
	if role == Buyer && underFloor(l, amount) {
		o.Status, o.Awaiting, o.Reserved = StatusRejected, "", 0
	}
	if err := tx.UpdateOffer(ctx, o); err != nil {
		return err
	}
	if err := s.onRound(ctx, tx, actCounter, o, r); err != nil {
		return err
	}
	if err := record(ctx, tx, now, c.Actor, "offer.countered", o, map[string]any{"by": string(role), "message": msg}); err != nil {
		return err
	}
	if o.Status == StatusRejected {
		return record(ctx, tx, now, market.System, "offer.rejected", o, nil)
	}
	return nil
}

// Withdraw ends the buyer's offer while it waits for an answer.
func (s *Service) Withdraw(ctx context.Context, c Caller, id string) (*Offer, error) {
	now := s.clock.Now()
	var o *Offer
	err := s.store.InTx(ctx, func(tx Tx) error {
		var role Party
		var err error
		if o, role, err = participant(ctx, tx, c, id); err != nil {
			return err
		}
		if role != Buyer {
			return market.Errorf(market.CodeForbidden, "only the buyer may withdraw an offer")
		}
		if err := may(c, Buyer); err != nil {
			return err
		}
		if err := answerable(o, role, now); err != nil && market.CodeOf(err) != market.CodeForbidden {
			return err
		}
		o.Status, o.Awaiting, o.Reserved, o.UpdatedAt = StatusWithdrawn, "", 0, now
		if err := tx.UpdateOffer(ctx, o); err != nil {
			return err
		}
		// The seller learns of it in the thread; the timeline keeps it
		// (offer.withdrawn is not among the contract's delivered events).
		if err := postRound(ctx, tx, actWithdraw, o, Round{Round: o.Round, By: Buyer, SentByAgent: c.Actor.IsAgent(), CreatedAt: now}); err != nil {
			return err
		}
		return record(ctx, tx, now, c.Actor, "offer.withdrawn", o, nil)
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// Get returns an offer the caller is a party to; the seller's view carries
// the listing's floor price and cost basis.
func (s *Service) Get(ctx context.Context, c Caller, id string) (*Offer, error) {
	tx := s.store.Read()
	o, role, err := participant(ctx, tx, c, id)
	if err != nil {
		return nil, err
	}
	s.expireView(o)
	if role == Seller {
		s.private(ctx, tx, o)
	}
	return o, nil
}

// expireView shows an offer whose time ran out as expired before the sweep
// gets to it.
func (s *Service) expireView(o *Offer) {
	if o.Open() && !s.clock.Now().Before(o.ExpiresAt) {
		o.Status, o.Awaiting, o.Reserved = StatusExpired, "", 0
	}
}

// private fills the seller's floor price and cost basis into out, from the
// listings of offers.
func (s *Service) private(ctx context.Context, tx Tx, out ...*Offer) {
	cache := map[string]*listings.Listing{}
	for _, o := range out {
		l, ok := cache[o.ListingID]
		if !ok {
			l, _ = tx.ListingByID(ctx, o.ListingID)
			cache[o.ListingID] = l
		}
		if l != nil && l.SellerID == o.SellerID {
			o.FloorPrice, o.CostBasis = l.FloorPrice, l.CostBasis
		}
	}
}

// List returns a page of the caller's offers as buyer or seller, newest
// first.
func (s *Service) List(ctx context.Context, c Caller, role Party, status string, limit, offset int) ([]Offer, int, error) {
	f := Filter{UserID: c.User.ID, Role: role, Limit: limit, Offset: offset}
	if status != "" {
		ok := false
		for _, st := range AllStatuses {
			ok = ok || string(st) == status
		}
		if !ok {
			return nil, 0, market.Invalid(market.FieldError{Field: "status", Message: "must be one of pending, countered, accepted, rejected, withdrawn, expired"})
		}
		f.Status = Status(status)
	}
	tx := s.store.Read()
	out, total, err := tx.Offers(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	ptrs := make([]*Offer, len(out))
	for i := range out {
		s.expireView(&out[i])
		ptrs[i] = &out[i]
	}
	if role == Seller {
		s.private(ctx, tx, ptrs...)
	}
	return out, total, nil
}

// ActiveOn returns the caller's open offer on a listing (NOT_FOUND when
// there is none).
func (s *Service) ActiveOn(ctx context.Context, c Caller, listingID string) (*Offer, error) {
	if !market.ValidID(listingID) {
		return nil, market.NotFound("offer")
	}
	o, err := s.store.Read().OpenOfferOf(ctx, c.User.ID, listingID)
	if err != nil {
		return nil, err
	}
	s.expireView(o)
	if !o.Open() {
		return nil, market.NotFound("offer")
	}
	return o, nil
}

// AgreedPrice returns the agreed price of an accepted offer the buyer may
// buy now (the purchase path's check of offerId).
func AgreedPrice(ctx context.Context, tx PurchaseTx, offerID, buyerID, listingID string, now time.Time) (int64, error) {
	if !market.ValidID(offerID) {
		return 0, market.NotFound("offer")
	}
	o, err := tx.OfferByID(ctx, offerID)
	if err != nil {
		return 0, err
	}
	if o.BuyerID != buyerID {
		return 0, market.NotFound("offer")
	}
	if o.ListingID != listingID {
		return 0, market.Invalid(market.FieldError{Field: "offer_id", Message: "is an offer on another listing"})
	}
	switch {
	case o.Status == StatusExpired, o.Open() && !now.Before(o.ExpiresAt):
		return 0, market.Errorf(market.CodeOfferExpired, "the offer expired at %s", o.ExpiresAt.Format(time.RFC3339)).
			WithDetails(map[string]any{"expires_at": o.ExpiresAt})
	case o.Status != StatusAccepted || o.OrderID != "" || o.AgreedPrice == nil:
		return 0, market.Errorf(market.CodeOfferNotAccepted, "the offer is %s, not accepted", o.Status).
			WithDetails(map[string]any{"status": string(o.Status)})
	}
	return *o.AgreedPrice, nil
}

// Used marks an accepted offer as bought by the order; its reservation ends
// (the order's spending counts instead).
func Used(ctx context.Context, tx PurchaseTx, offerID, orderID string, now time.Time) error {
	o, err := tx.OfferByID(ctx, offerID)
	if err != nil {
		return err
	}
	o.OrderID, o.Reserved, o.UpdatedAt = orderID, 0, now
	return tx.UpdateOffer(ctx, o)
}

// ListingSold expires the open offers on a listing that was just sold.
func ListingSold(ctx context.Context, tx PurchaseTx, listingID string, now time.Time) error {
	open, err := tx.OpenOffersOn(ctx, listingID)
	if err != nil {
		return err
	}
	for i := range open {
		if err := expire(ctx, tx, &open[i], now, "listing_sold"); err != nil {
			return err
		}
	}
	return nil
}

func expire(ctx context.Context, tx PurchaseTx, o *Offer, now time.Time, reason string) error {
	o.Status, o.Awaiting, o.Reserved, o.UpdatedAt = StatusExpired, "", 0, now
	if err := tx.UpdateOffer(ctx, o); err != nil {
		return err
	}
	return record(ctx, tx, now, market.System, "offer.expired", o, map[string]any{"reason": reason})
}

// ExpireDue marks offers whose round (or purchase window) ran out as
// expired, and returns how many it moved. The periodic sweep and the
// sandbox's time-advance run it.
func (s *Service) ExpireDue(ctx context.Context) (int, error) {
	now := s.clock.Now()
	n := 0
	for {
		due, err := s.store.Read().DueOffers(ctx, now, 100)
		if err != nil || len(due) == 0 {
			return n, err
		}
		for _, d := range due {
			err := s.store.InTx(ctx, func(tx Tx) error {
				o, err := tx.OfferByID(ctx, d.ID)
				if err != nil {
					return err
				}
				if !o.Open() || now.Before(o.ExpiresAt) {
					return nil
				}
				n++
				return expire(ctx, tx, o, now, "timeout")
			})
			if err != nil {
				return n, err
			}
		}
		if len(due) < 100 {
			return n, nil
		}
	}
}
