package orders

import (
	"context"
	"errors"
	"strconv"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/events"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/payments"
)

// MaxAmount bounds every amount a request may name (ten million in currency
// units), so sums of cents never come near overflow.
const MaxAmount int64 = 1_000_000_000

// PurchaseInput is a purchase request of either surface in domain terms.
// Field names in errors are Variant A's; Variant B's surface renames them.
type PurchaseInput struct {
	ListingID            string
	MaxPrice             *int64
	ExpectedPrice        *int64
	ShippingAddress      *accounts.Address
	ShippingAddressID    string
	Fulfillment          string // "", shipping, local_pickup
	ShippingRateID       string
	RateField            string // the request's name for the rate id
	SelectedShippingCost *int64 // Variant B: must equal the quoted amount
	SelectedCarrier      string // Variant B: must match the quoted rate
	SelectedService      string
	OfferID              string
	PaymentMethodID      string
	// PaymentToken, when set, is charged instead of a saved card: a card
	// delegated to the processor (ACP's delegate_payment), bound to the
	// checkout session CheckoutSessionID names.
	PaymentToken      string
	CheckoutSessionID string
	BuyerZip          string // fee estimates: stands in for an address
	RequestID         string // the call's request id, for the authorization record
	// Within, when set, runs first in the purchase's transaction (Purchase
	// only): an offer's acceptance, which then commits with the
	// reservation or not at all. Its error ends the purchase.
	Within func(ctx context.Context, tx Tx) error

	estimate bool
}

// Buyer is who is buying: a human, or an agent key and its owner.
type Buyer struct {
	Actor market.Actor
	User  *accounts.User // the human, or the agent's owner
	Key   *agents.Key    // set for agents
}

func (in *PurchaseInput) check(agent bool) error {
	var c market.Check
	c.Require(market.ValidID(in.ListingID), "listing_id", "must be a listing id")
	if agent {
		c.Require(in.MaxPrice != nil, "max_price", "is required: the most, in cents, the agent may pay for the item")
	}
	amount := func(field string, v *int64, min int64) {
		if v != nil {
			c.Require(*v >= min && *v <= MaxAmount, field, "must be an amount in cents from "+strconv.FormatInt(min, 10)+" to 1000000000")
		}
	}
	amount("max_price", in.MaxPrice, 1)
	amount("expected_price", in.ExpectedPrice, 0)
	amount("selected_shipping_cost", in.SelectedShippingCost, 0)
	switch in.Fulfillment {
	case "", string(FulfillShipping), string(FulfillLocalPickup):
	default:
		c.Add("fulfillment_type", "must be shipping or local_pickup")
	}
	if in.ShippingAddress != nil && in.ShippingAddressID != "" {
		c.Add("shipping_address_id", "give shippingAddress or shippingAddressId, not both")
	}
	if in.ShippingAddressID != "" {
		c.Require(market.ValidID(in.ShippingAddressID), "shipping_address_id", "must be the id of one of your saved addresses")
	}
	if in.ShippingAddress != nil {
		accounts.CheckAddress(&c, "shipping_address.", in.ShippingAddress)
	}
	c.Require(len(in.ShippingRateID) <= 2048, in.rateField(), "is not a rate id this service issued")
	c.Require(in.OfferID == "" || market.ValidID(in.OfferID), "offer_id", "must be an offer id")
	c.Require(in.PaymentMethodID == "" || market.ValidID(in.PaymentMethodID), "payment_method_id", "must be the id of one of your saved payment methods")
	c.Require(in.PaymentToken == "" || in.PaymentMethodID == "", "payment_method_id", "cannot be given with a delegated payment token")
	c.Require(len(in.PaymentToken) <= 255 && len(in.CheckoutSessionID) <= 255, "payment_token", "must be at most 255 characters")
	return c.Err()
}

func (in *PurchaseInput) rateField() string {
	if in.RateField != "" {
		return in.RateField
	}
	return "shipping_rate_id"
}

// draft is an order being put together inside the purchase transaction.
type draft struct {
	listing *listings.Listing
	order   *Order
}

// prepare runs the checks that come before spending controls (CONTRACT.md
// section 7, in its order) and returns the order they describe.
func (s *Service) prepare(ctx context.Context, tx Tx, b Buyer, in *PurchaseInput, rates FeeRates, now time.Time) (*draft, error) {
	l, err := s.buyable(ctx, tx, in.ListingID, b.User.ID)
	if err != nil {
		return nil, err
	}
	if l.SellerID == b.User.ID {
		return nil, market.Errorf(market.CodeCannotBuyOwnListing, "you cannot buy your own listing")
	}
	price := l.Price
	if in.OfferID != "" {
		if price, err = s.offerPrice(ctx, tx, in.OfferID, b.User.ID, l, now); err != nil {
			return nil, err
		}
	}
	if in.ExpectedPrice != nil && *in.ExpectedPrice != price {
		return nil, market.Errorf(market.CodePriceChanged, "the price is now %d cents; fetch the listing again", price).
			WithDetails(map[string]any{"current_price": price, "expected_price": *in.ExpectedPrice})
	}
	if in.MaxPrice != nil && price > *in.MaxPrice {
		return nil, market.Errorf(market.CodeMaxPriceExceeded, "the price of %d cents is above maxPrice %d", price, *in.MaxPrice).
			WithDetails(map[string]any{"current_price": price, "max_price": *in.MaxPrice})
	}
	o := &Order{
		ID: market.NewID(), ListingID: l.ID, BuyerID: b.User.ID, SellerID: l.SellerID, Channel: ChannelHuman,
		CheckoutSessionID: in.CheckoutSessionID,
		ListingTitle:      l.Title, MaxPrice: in.MaxPrice, ExpectedPrice: in.ExpectedPrice, OfferID: in.OfferID,
		IdempotencyKey: market.IdempotencyKey(ctx), CreatedAt: now, UpdatedAt: now,
	}
	if b.Actor.IsAgent() {
		o.Channel, o.BuyerKeyID = ChannelAgent, b.Actor.KeyID
	}
	cost, err := s.resolveShipping(ctx, tx, l, b.User.ID, in, o, now)
	if err != nil {
		return nil, err
	}
	o.Fees = Compute(rates, price, cost)
	return &draft{listing: l, order: o}, nil
}

// offerPrice is what buying l with an accepted offer pays: the agreed
// price, or the list price when the seller has since lowered it below that
// (an offer never costs more than buying without it). It is read in the
// purchase's transaction, on the locked listing, so a price cut committed
// before the purchase always counts.
func (s *Service) offerPrice(ctx context.Context, tx Tx, offerID, buyerID string, l *listings.Listing, now time.Time) (int64, error) {
	if s.opts.Offers == nil {
		return 0, market.NotFound("offer")
	}
	agreed, err := s.opts.Offers.AgreedPrice(ctx, tx, offerID, buyerID, l.ID, now)
	if err != nil {
		return 0, err
	}
	return min(agreed, l.Price), nil
}

// buyable loads a listing that can be bought now. Deleted and generating
// listings do not exist for buyers.
func (s *Service) buyable(ctx context.Context, tx Tx, id, buyerID string) (*listings.Listing, error) {
	l, err := tx.ListingByID(ctx, id)
	if market.CodeOf(err) == market.CodeNotFound || err == nil && (l.Status == listings.StatusDeleted || l.Status == listings.StatusPendingAI) {
		return nil, market.Errorf(market.CodeListingNotFound, "listing not found")
	}
	if err != nil {
		return nil, err
	}
	return l, s.available(ctx, tx, l, buyerID)
}

// available refuses a listing that cannot be bought now: LISTING_SOLD when
// it is sold or an agent's purchase of it is going through, else
// LISTING_NOT_AVAILABLE (reserved by a human checkout, archived, held,
// removed). A buyer whose own order holds the listing is told so, with the
// order's id: a retry after a lost answer must not read "someone else".
func (s *Service) available(ctx context.Context, tx Tx, l *listings.Listing, buyerID string) error {
	if l.Status == listings.StatusActive {
		return nil
	}
	var live *Order
	if l.Status == listings.StatusReserved || l.Status == listings.StatusSold {
		if o, err := tx.LiveOrderOf(ctx, l.ID); err == nil {
			live = o
		} else if market.CodeOf(err) != market.CodeNotFound {
			return err
		}
	}
	// DUPLICATE_REQUEST is for a reused idempotency key only; a second
	// purchase of one's own reserved listing is told the listing is taken.
	switch {
	case live != nil && live.BuyerID == buyerID && live.Status == StatusPendingPayment && live.ReservedUntil == nil:
		return market.Errorf(market.CodeListingSold, "your own purchase of this listing is already going through").
			WithDetails(map[string]any{"order_id": live.ID})
	case live != nil && live.BuyerID == buyerID && live.Status == StatusPendingPayment:
		return market.Errorf(market.CodeListingNotAvailable, "your own checkout holds this listing; pay on its page").
			WithDetails(map[string]any{"order_id": live.ID, "status": string(l.Status)})
	case live != nil && live.BuyerID == buyerID:
		return market.Errorf(market.CodeListingSold, "you already bought this listing").
			WithDetails(map[string]any{"order_id": live.ID})
	case l.Status == listings.StatusSold, live != nil && live.ReservedUntil == nil:
		return errSold()
	}
	return market.Errorf(market.CodeListingNotAvailable, "the listing is %s and cannot be bought now", l.Status).
		WithDetails(map[string]any{"status": string(l.Status)})
}

func errSold() error {
	return market.Errorf(market.CodeListingSold, "the listing was bought by someone else")
}

// resolveShipping settles fulfilment, address and shipping cost on o, and
// returns the cost. A calculated-shipping listing needs a quoted rate; the
// amount always comes from the signed quote, never from the client.
func (s *Service) resolveShipping(ctx context.Context, tx Tx, l *listings.Listing, buyerID string, in *PurchaseInput, o *Order, now time.Time) (int64, error) {
	pickupOK := l.ShippingType == listings.ShipLocalPickup || l.ShippingType == listings.ShipBoth
	f := Fulfillment(in.Fulfillment)
	if f == "" {
		f = FulfillShipping
		if l.ShippingType == listings.ShipLocalPickup {
			f = FulfillLocalPickup
		}
	}
	o.Fulfillment = f
	if f == FulfillLocalPickup {
		if !pickupOK && s.opts.Rates != nil { // the seller may offer pickup on listings that ship
			var err error
			if pickupOK, err = s.opts.Rates.LocalPickup(ctx, l); err != nil {
				return 0, err
			}
		}
		if !pickupOK {
			return 0, market.Invalid(market.FieldError{Field: "fulfillment_type", Message: "this listing does not offer local pickup"})
		}
		return 0, nil
	}
	if l.ShippingType == listings.ShipLocalPickup {
		return 0, market.Invalid(market.FieldError{Field: "fulfillment_type", Message: "this listing is local pickup only; send fulfillmentType local_pickup"})
	}
	addr, err := s.address(ctx, tx, buyerID, in)
	if err != nil && in.estimate && market.CodeOf(err) == market.CodeValidation {
		addr, err = &accounts.Address{Zip: in.BuyerZip}, nil
	}
	if err != nil {
		return 0, err
	}
	o.ShippingAddress = addr
	var cost int64
	switch l.ShippingType {
	case listings.ShipFree:
	case listings.ShipFlatRate, listings.ShipBoth:
		if l.ShippingCost != nil {
			cost = *l.ShippingCost
		}
	case listings.ShipCalculated:
		if in.ShippingRateID == "" {
			return 0, market.Errorf(market.CodeShippingCostRequired,
				"this listing ships at a calculated rate: quote it with POST /shipping/rates and send the rate id")
		}
		if s.opts.Rates == nil {
			return 0, market.Internal(errNoRates)
		}
		rate, err := s.opts.Rates.VerifyRate(in.ShippingRateID, l.ID, addr.Zip, in.rateField(), now)
		if err != nil {
			return 0, err
		}
		cost, o.Carrier, o.Service, o.RateID = rate.Amount, rate.Carrier, rate.Service, in.ShippingRateID
		days := rate.EstimatedDays
		o.EstimatedDays = &days
		eta := now.AddDate(0, 0, days)
		o.EstimatedDelivery = &eta
	}
	carrier, service := o.Carrier, o.Service
	if carrier == "" { // the seller ships: the quote names these
		carrier, service = "seller", string(l.ShippingType)
		if l.ShippingType == listings.ShipBoth {
			service = string(listings.ShipFlatRate)
		}
	}
	if in.SelectedCarrier != "" && in.SelectedCarrier != carrier || in.SelectedService != "" && in.SelectedService != service {
		return 0, market.Invalid(market.FieldError{Field: "selected_carrier",
			Message: "must match the quoted rate (" + carrier + " " + service + ")"})
	}
	if in.SelectedShippingCost != nil && *in.SelectedShippingCost != cost {
		return 0, market.Invalid(market.FieldError{Field: "selected_shipping_cost",
			Message: "must equal the quoted shipping cost of " + strconv.FormatInt(cost, 10) + " cents"})
	}
	return cost, nil
}

type noRatesError struct{}

func (noRatesError) Error() string { return "orders: no shipping rate verifier configured" }

var errNoRates = noRatesError{}

// address resolves the shipping address: inline, a saved one by id, or the
// buyer's default saved address.
func (s *Service) address(ctx context.Context, tx Tx, buyerID string, in *PurchaseInput) (*accounts.Address, error) {
	if in.ShippingAddress != nil {
		a := *in.ShippingAddress
		a.ID, a.UserID = "", ""
		return &a, nil
	}
	saved, err := tx.Addresses(ctx, buyerID)
	if err != nil {
		return nil, err
	}
	for i := range saved {
		if in.ShippingAddressID != "" && saved[i].ID == in.ShippingAddressID || in.ShippingAddressID == "" && saved[i].IsDefault {
			a := saved[i]
			return &a, nil
		}
	}
	if in.ShippingAddressID != "" {
		return nil, market.Invalid(market.FieldError{Field: "shipping_address_id", Message: "is not one of your saved addresses"})
	}
	return nil, market.Invalid(market.FieldError{Field: "shipping_address",
		Message: "is required: send shippingAddress or shippingAddressId (or fulfillmentType local_pickup)"})
}

// taxonomy is the category tree in force (admins' categories and switches
// included), read before a purchase's transaction; nil without a source.
func (s *Service) taxonomy(ctx context.Context) (*listings.Taxonomy, error) {
	if s.opts.Taxonomy == nil {
		return nil, nil
	}
	return s.opts.Taxonomy.Taxonomy(ctx)
}

// purchaseSetup is what a purchase reads before its transaction: the fee
// rates, the category tree and the purchase-velocity limit in force.
type purchaseSetup struct {
	rates    FeeRates
	tax      *listings.Taxonomy
	velocity int64 // agents.SpendRequest.MaxPurchasesPerHour; 0: no rule
}

// The settings come from one read of the config (one version check).
func (s *Service) purchaseSetup(ctx context.Context) (purchaseSetup, error) {
	su := purchaseSetup{rates: DefaultFeeRates}
	if s.opts.Settings != nil {
		r, err := s.opts.Settings.PurchaseRules(ctx)
		if err != nil {
			return purchaseSetup{}, err
		}
		su.rates, su.velocity = r.Fees, r.MaxPurchasesPerHour
	}
	var err error
	su.tax, err = s.taxonomy(ctx)
	return su, err
}

// precheck runs the checks that need no store: the request, and an agent's
// owner being verified.
func precheck(b Buyer, in *PurchaseInput) error {
	if err := in.check(b.Actor.IsAgent()); err != nil {
		return err
	}
	if b.Actor.IsAgent() && !b.User.IdentityVerified {
		return market.Errorf(market.CodeOwnerNotVerified, "the agent's owner must verify their identity before the agent can buy")
	}
	return nil
}

// authorized is a purchase that passed every check before the reservation.
type authorized struct {
	draft     *draft
	approval  bool  // above the approval threshold: the purchase is queued
	threshold int64 // the threshold, when approval
	method    *payments.PaymentMethod
	customer  string
	standing  *standing // agents: the caps and what is left of them, before this purchase
}

// authorize runs every check of the purchase path after precheck, up to
// (not including) the reservation and the charge, in tx: the listing,
// price and shipping (prepare), spending controls and the payment method.
// Purchase and Check both call it, so the dry run answers what the
// purchase would. On a refusal it still returns what it settled (the
// draft's fees, the caps' standing) with the error, for the dry run.
func (s *Service) authorize(ctx context.Context, tx Tx, b Buyer, in *PurchaseInput, su purchaseSetup, now time.Time) (*authorized, error) {
	d, err := s.prepare(ctx, tx, b, in, su.rates, now)
	if err != nil {
		return nil, err
	}
	a := &authorized{draft: d}
	o := d.order
	if b.Actor.IsAgent() {
		v, err := agents.CheckSpend(ctx, tx, now, agents.SpendRequest{
			OwnerID: b.User.ID, Key: b.Key, Amount: o.Fees.TotalCharged, InCategory: func(r string) bool { return su.tax.Restricts(r, d.listing) },
			ExcludeOfferID:      in.OfferID, // the order takes over the offer's reservation
			MaxPurchasesPerHour: su.velocity})
		if market.CodeOf(err) == market.CodeInternal {
			return a, err
		}
		// Read under the owner's lock CheckSpend took: the figures it checked.
		st, serr := spendStanding(ctx, tx, now, b.User.ID, b.Key, in.OfferID)
		if serr != nil {
			return a, serr
		}
		a.standing = st
		if err != nil {
			return a, err
		}
		if v.NeedsApproval {
			a.approval, a.threshold = true, v.Threshold
			// A card the agent named must be one the owner could be
			// charged with, before the owner is asked about it.
			if in.PaymentToken != "" {
				o.PaymentToken = in.PaymentToken
			} else if in.PaymentMethodID != "" {
				if a.method, _, err = s.opts.Payments.ChargeableMethod(ctx, tx, b.User.ID, in.PaymentMethodID); err != nil {
					return a, err
				}
				o.PaymentMethodID = a.method.ID
			}
			return a, nil
		}
	}
	o.Processor = s.opts.Gateway.Name()
	if in.PaymentToken != "" {
		// The processor holds the card and checks the token's allowance
		// when it is charged.
		o.PaymentToken = in.PaymentToken
		return a, nil
	}
	if a.method, a.customer, err = s.opts.Payments.ChargeableMethod(ctx, tx, b.User.ID, in.PaymentMethodID); err != nil {
		return a, err
	}
	o.PaymentMethodID = a.method.ID
	return a, nil
}

// Purchase is the off-session agent purchase (and a human's purchase with a
// saved card through the same path). See ARCHITECTURE.md "The purchase
// path": one transaction checks and reserves, the processor charges with the
// order id as idempotency key, a second transaction settles.
func (s *Service) Purchase(ctx context.Context, b Buyer, in PurchaseInput) (*Order, error) {
	if err := precheck(b, &in); err != nil {
		return nil, err
	}
	if earlier, err := s.keyed(ctx, b.User.ID); err != nil {
		return nil, err
	} else if earlier != nil {
		if o, err := s.resume(ctx, earlier, in.ListingID); !errors.Is(err, errRunAgain) {
			return o, err
		}
	}
	su, err := s.purchaseSetup(ctx)
	if err != nil {
		return nil, err
	}
	var o *Order
	var approval *Approval
	var a *authorized
	now := s.clock.Now()
	err = s.inTxGrouped(ctx, func(tx Tx) error {
		var err error
		if o != nil { // a grouped function may run twice: forget the first run
			s.charging.done(o.ID)
		}
		o, approval = nil, nil
		if in.Within != nil {
			if err := in.Within(ctx, tx); err != nil {
				return err
			}
		}
		if a, err = s.authorize(ctx, tx, b, &in, su, now); err != nil {
			return err
		}
		o = a.draft.order
		if a.approval {
			approval, err = s.queueApproval(ctx, tx, b, o, in.RequestID, now)
			return err
		}
		if b.Actor.IsAgent() {
			o.Authorization = newAuthorization(b.Key, b.Actor.KeyID, o, a.standing, in.RequestID, nil, now)
		}
		return s.reserve(ctx, tx, o, "", now)
	})
	if err != nil {
		if o != nil {
			s.charging.done(o.ID)
		}
		return nil, err
	}
	if approval != nil {
		return o, approvalRequired(approval.ID, o.ID)
	}
	if err := s.keyStopped(ctx, o); err != nil {
		return nil, err
	}
	paid, err := s.charge(ctx, o, a.customer, externalID(a.method))
	if paid != nil && paid.Authorization == nil {
		paid.Authorization = o.Authorization
	}
	return paid, err
}

// Estimate returns the order a purchase with in would make (its fees are
// exactly what the purchase would charge) without reserving or charging
// anything. Spending controls are not run: the estimate says what the
// purchase costs, the purchase says whether it may happen.
func (s *Service) Estimate(ctx context.Context, b Buyer, in PurchaseInput) (*Order, error) {
	in.estimate = true
	if err := in.check(false); err != nil {
		return nil, err
	}
	rates, err := s.feeRates(ctx)
	if err != nil {
		return nil, err
	}
	d, err := s.prepare(ctx, s.store.Read(), b, &in, rates, s.clock.Now())
	if err != nil {
		return nil, err
	}
	return d.order, nil
}

// reserve takes the listing (only if it is still active: a concurrent
// purchase that got there first leaves nothing to take), saves the order as
// pending_payment (a new order, or one queued as from) and records the
// agent's spending, all in the caller's transaction.
func (s *Service) reserve(ctx context.Context, tx Tx, o *Order, from Status, now time.Time) error {
	ok, err := tx.MoveListing(ctx, o.ListingID, []listings.Status{listings.StatusActive}, listings.StatusReserved, now)
	if err != nil {
		return err
	}
	if !ok {
		return errSold()
	}
	if o.ReservedUntil == nil {
		// An off-session charge follows this commit: the reconciler must
		// not take the order for abandoned meanwhile (charging).
		s.charging.add(o.ID)
	}
	o.Status, o.UpdatedAt = StatusPendingPayment, now
	if from == "" {
		err = tx.CreateOrder(ctx, o)
	} else if ok, err = tx.UpdateOrder(ctx, o, from); err == nil && !ok {
		err = market.Errorf(market.CodeInvalidState, "the order is no longer %s", from)
	}
	if market.CodeOf(err) == market.CodeInvalidState && from == "" { // the one-live-order index
		return errSold()
	}
	if err != nil {
		return err
	}
	if o.Authorization != nil {
		if err := tx.RecordAuthorization(ctx, o.ID, o.Authorization); err != nil {
			return err
		}
	}
	if o.Channel == ChannelAgent {
		return tx.RecordSpend(ctx, o.BuyerID, o.BuyerKeyID, o.ID, o.Fees.TotalCharged, now, nil)
	}
	return nil
}

// externalID is the processor's id of a saved card, "" when the order is
// charged with a delegated token instead.
func externalID(m *payments.PaymentMethod) string {
	if m == nil {
		return ""
	}
	return m.ExternalID
}

// chargeTimeout bounds one processor call, well inside the reconciler's
// grace period, so a slow processor never races the repair of its order.
const chargeTimeout = 30 * time.Second

// charge asks the processor for the money and settles or releases the order
// by the answer. When the processor cannot be reached the charge is sent
// again under the same idempotency key (it cannot charge twice), then the
// payment is looked up. An outcome still unknown leaves the order for the
// reconciler, which settles or releases it once the processor's record is
// certain: releasing on a guess could leave a charge without its order.
func (s *Service) charge(ctx context.Context, o *Order, customer, method string) (*Order, error) {
	s.charging.add(o.ID) // a resumed charge, too
	defer s.charging.done(o.ID)
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), chargeTimeout)
	defer cancel()
	req := payments.ChargeRequest{
		IdempotencyKey: o.ID, CustomerID: customer, PaymentMethodID: method, Token: o.PaymentToken, Amount: o.Fees.TotalCharged,
		Currency: "usd", Description: truncate(o.ListingTitle, 200),
		Metadata: map[string]string{"order_id": o.ID, "listing_id": o.ListingID, "buyer_id": o.BuyerID},
	}
	if o.CheckoutSessionID != "" {
		req.Metadata["checkout_session_id"] = o.CheckoutSessionID
	}
	pay, err := s.opts.Gateway.Charge(cctx, req)
	if err != nil {
		pay, err = s.opts.Gateway.Charge(cctx, req)
	}
	if err != nil {
		if pay, err = s.opts.Gateway.PaymentByKey(cctx, o.ID); err != nil {
			return nil, market.Errorf(market.CodePaymentFailed,
				"the payment processor did not answer; the order will be settled if the charge went through, or released within minutes").
				WithDetails(map[string]any{"order_id": o.ID})
		}
	}
	return s.finish(ctx, o, pay)
}

// finish applies the processor's answer to a pending order.
func (s *Service) finish(ctx context.Context, o *Order, pay *payments.Payment) (*Order, error) {
	switch pay.Status {
	case payments.PaymentSucceeded:
		settled, err := s.settle(ctx, o.ID, pay)
		if err != nil {
			s.opts.Log.Error("settle failed; the reconciler will settle the order", "order_id", o.ID, "err", err.Error())
			// The money moved, so the answer is the order, still
			// pending_payment: the reconciler settles it, and a retry
			// must not be told the purchase failed.
			return o, nil
		}
		return settled, nil
	case payments.PaymentRequiresAction:
		return nil, s.release(ctx, o, pay.FailureCode, market.Errorf(market.CodeSCARequired,
			"the card's bank requires the owner to authenticate this payment; nothing was charged").
			WithDetails(map[string]any{"payment_id": pay.ID}))
	case payments.PaymentProcessing:
		return o, nil // settled by the processor's webhook or the reconciler
	}
	msg := pay.FailureMessage
	if msg == "" {
		msg = "the card was declined"
	}
	return nil, s.release(ctx, o, pay.FailureCode, market.Errorf(market.CodePaymentFailed, "%s; nothing was charged", msg).
		WithDetails(map[string]any{"decline_code": pay.FailureCode}))
}

// settle marks a charged order paid and its listing sold, with their
// events, in one transaction. Settling an order that is already paid is a
// no-op, so the purchase, the reconciler and a webhook may all try. The
// transaction is a grouped one: concurrent settles (and the other small
// writes of purchases) share a commit; all it does stays inside tx, so it
// may run again alone if the shared transaction fails.
func (s *Service) settle(ctx context.Context, orderID string, pay *payments.Payment) (*Order, error) {
	if s.opts.BeforeSettle != nil {
		if err := s.opts.BeforeSettle(ctx, orderID); err != nil {
			return nil, err
		}
	}
	var o *Order
	err := s.inTxGrouped(ctx, func(tx Tx) error {
		var err error
		if o, err = tx.OrderByID(ctx, orderID); err != nil {
			return err
		}
		if o.Status != StatusPendingPayment {
			return nil
		}
		now := s.clock.Now()
		o.Status, o.PaymentID, o.PaidAt, o.UpdatedAt, o.ReservedUntil = StatusPaid, pay.ID, &now, now, nil
		if ok, err := tx.UpdateOrder(ctx, o, StatusPendingPayment); err != nil || !ok {
			return err
		}
		if _, err := tx.MoveListing(ctx, o.ListingID, []listings.Status{listings.StatusReserved}, listings.StatusSold, now); err != nil {
			return err
		}
		if o.OfferID != "" && s.opts.Offers != nil {
			if err := s.opts.Offers.Used(ctx, tx, o.OfferID, o.ID); err != nil {
				return err
			}
		}
		if s.opts.Offers != nil { // the listing is sold: its other open offers expire
			if err := s.opts.Offers.ListingSold(ctx, tx, o.ListingID); err != nil {
				return err
			}
		}
		if s.opts.OnPaid != nil {
			if err := s.opts.OnPaid(ctx, tx, o); err != nil {
				return err
			}
		}
		return s.recordPaid(ctx, tx, o, pay, now)
	})
	return o, err
}

// groupedStore is a Store whose transactions can share one commit with
// concurrent ones (store.DB: on SQLite's one write connection).
type groupedStore interface {
	InTxGrouped(ctx context.Context, fn func(Tx) error) error
}

func (s *Service) inTxGrouped(ctx context.Context, fn func(Tx) error) error {
	if g, ok := s.store.(groupedStore); ok {
		return g.InTxGrouped(ctx, fn)
	}
	return s.store.InTx(ctx, fn)
}

func (s *Service) recordPaid(ctx context.Context, tx Tx, o *Order, pay *payments.Payment, now time.Time) error {
	buyer := market.Actor{Type: market.ActorUser, UserID: o.BuyerID}
	if o.BuyerKeyID != "" {
		buyer = market.Actor{Type: market.ActorAgent, UserID: o.BuyerID, KeyID: o.BuyerKeyID}
	}
	if err := recordOrder(ctx, tx, now, buyer, "order.created", o, nil); err != nil {
		return err
	}
	if err := events.Record(ctx, tx, now, market.System, "payment.succeeded", "order", o.ID, map[string]any{
		"payment_id": pay.ID, "amount": o.Fees.TotalCharged, "processor": o.Processor,
	}); err != nil {
		return err
	}
	watchers, err := tx.Watchers(ctx, o.ListingID)
	if err != nil {
		return err
	}
	sold := map[string]any{"listing_id": o.ListingID, "title": o.ListingTitle, "seller_id": o.SellerID,
		"order_id": o.ID, "price": o.Fees.ItemPrice, "status": "sold"}
	if err := events.Record(ctx, tx, now, buyer, "listing.sold", "listing", o.ListingID, sold, o.SellerID); err != nil {
		return err
	}
	if len(watchers) == 0 {
		return nil
	}
	// Watchers hear that the listing changed: it is sold. They see the
	// listing as anyone may, never the price agreed in an offer.
	l, err := tx.ListingByID(ctx, o.ListingID)
	if err != nil {
		return err
	}
	return events.Record(ctx, tx, now, buyer, "listing.updated", "listing", o.ListingID, listings.Snapshot(l, map[string]any{
		"changes": []string{"status"}, "previous_status": string(listings.StatusActive)}), watchers...)
}

// release undoes a reservation whose charge did not happen: the listing is
// active again, the spending is given back, and the order is gone (a direct
// purchase never made an order the buyer saw) or, for an approved purchase
// the owner saw queued, cancelled with the failure. It returns cause, or the
// error that stopped the release.
func (s *Service) release(ctx context.Context, o *Order, failure string, cause error) error {
	err := s.store.InTx(ctx, func(tx Tx) error {
		cur, err := tx.OrderByID(ctx, o.ID)
		if market.CodeOf(err) == market.CodeNotFound {
			return nil
		}
		if err != nil {
			return err
		}
		if cur.Status != StatusPendingPayment {
			return nil
		}
		now := s.clock.Now()
		if _, err := tx.MoveListing(ctx, cur.ListingID, []listings.Status{listings.StatusReserved}, listings.StatusActive, now); err != nil {
			return err
		}
		if err := tx.DeleteSpend(ctx, cur.ID); err != nil {
			return err
		}
		queued, err := wasApproval(ctx, tx, cur)
		if err != nil {
			return err
		}
		if !queued {
			return tx.DeleteOrder(ctx, cur.ID)
		}
		cur.Status, cur.FailureCode, cur.CancelledAt, cur.UpdatedAt = StatusCancelled, failure, &now, now
		if _, err := tx.UpdateOrder(ctx, cur, StatusPendingPayment); err != nil {
			return err
		}
		return events.Record(ctx, tx, now, market.System, "payment.failed", "order", cur.ID, map[string]any{"failure_code": failure})
	})
	if err != nil {
		return err
	}
	return cause
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
