package shipping

import (
	"context"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/events"
	"marketplace/internal/listings"
	"marketplace/internal/market"
)

// Tx is what shipping reads: the listing and its seller (whose ship-from
// address is the origin, and whose preferences shape the quote); and what
// it writes, the seller's preferences.
type Tx interface {
	events.Tx
	ListingByID(ctx context.Context, id string) (*listings.Listing, error)
	UserByID(ctx context.Context, id string) (*accounts.User, error)
	// ShippingPrefs reads a seller's saved preferences (NOT_FOUND when
	// never saved); PutShippingPrefs saves them.
	ShippingPrefs(ctx context.Context, userID string) (*Prefs, error)
	PutShippingPrefs(ctx context.Context, p *Prefs) error
	// LockUser serialises changes to one seller's preferences.
	LockUser(ctx context.Context, userID string) error
}

// Store opens transactions (preferences) and read handles (quotes, which
// write nothing).
type Store interface {
	InTx(ctx context.Context, fn func(Tx) error) error
	Read() Tx
}

// QuoteType says where a quote's prices come from.
type QuoteType string

const (
	// QuoteDynamic: carrier rates from the engine (calculated shipping).
	QuoteDynamic QuoteType = "dynamic"
	// QuoteFlatRate: the seller's flat shipping cost (flat_rate and both).
	QuoteFlatRate QuoteType = "flat_rate"
	// QuoteFree: the seller pays shipping; one rate of 0.
	QuoteFree QuoteType = "free"
	// QuoteLocalPickup: no shipping at all; no rates.
	QuoteLocalPickup QuoteType = "local_pickup"
)

// The carrier and services of rates the seller sets rather than a carrier
// (flat-rate and free shipping): the seller ships with a carrier of their
// choice, or the platform label.
const (
	CarrierSeller   = "seller"
	ServiceFlatRate = "flat_rate"
	ServiceFree     = "free"
)

// MethodPlatformLabel is the auto-ship method on offer: once the order is
// paid, the seller gets a prepaid label from the platform
// (POST /orders/{id}/shipping/label) for the carrier and service chosen.
const MethodPlatformLabel = "platform_label"

// AutoShip says whether the order can ship on a platform label without the
// seller arranging a carrier. Every listing that ships can; pickup-only
// listings cannot (Method is then "").
type AutoShip struct {
	Enabled bool
	Method  string
}

// Quote is what it costs to get a listing to a buyer's ZIP code.
type Quote struct {
	Type                 QuoteType
	ListingID            string
	Zip                  string // the buyer's, 5-digit
	CheapestCents        int64  // 0 when there are no rates
	Rates                []Rate // cheapest first
	LocalPickupAvailable bool
	AutoShip             AutoShip
}

// Service quotes shipping.
type Service struct {
	store  Store
	clock  market.Clock
	engine *Engine
	signer *RateSigner
}

// NewService builds the shipping service. secret is the service's signing
// secret (the JWT secret), from which the rate-token key is derived; with no
// carriers the built-in ones quote.
func NewService(st Store, clock market.Clock, secret []byte, carriers ...Carrier) *Service {
	return &Service{store: st, clock: clock, engine: NewEngine(carriers...), signer: NewRateSigner(secret)}
}

// CheckZip validates a US ZIP code for field and returns its 5-digit form.
func CheckZip(c *market.Check, field, zip string) string {
	z, err := NormalizeZip(zip)
	if err != nil {
		c.Add(field, err.Error())
	}
	return z
}

// Quote is the pre-checkout quote for listingID shipped to zip, for anyone
// to ask. Only an active listing is quoted: unknown and hidden ones are
// LISTING_NOT_FOUND, reserved and sold ones LISTING_NOT_AVAILABLE. A bad
// ZIP code is VALIDATION_ERROR on "zip" (surfaces check it first under
// their own field names).
//
// By shipping type: calculated gets every carrier rate; flat_rate and both
// one seller rate at the listing's shipping cost; free one seller rate of 0;
// local_pickup no rates. Every rate carries a signed RateID valid for
// RateTTL, redeemable only for this listing and ZIP code.
//
// The seller's preferences shape it: their package defaults stand in for
// the listing's missing weight or size, their handling days are added to
// every rate's estimated days, their preferred carrier's rates are marked
// Preferred, and their pickup offer extends to listings whose type does not
// settle it (Prefs.Pickup).
func (s *Service) Quote(ctx context.Context, listingID, zip string) (*Quote, error) {
	l, origin, to, prefs, err := s.load(ctx, listingID, zip)
	if err != nil {
		return nil, err
	}
	if l.Status != listings.StatusActive {
		return nil, market.Errorf(market.CodeListingNotAvailable, "listing is %s and cannot be quoted", l.Status).
			WithDetails(map[string]any{"status": string(l.Status)})
	}
	q := &Quote{Type: QuoteDynamic, ListingID: l.ID, Zip: to, LocalPickupAvailable: prefs.Pickup(l),
		AutoShip: AutoShip{Enabled: true, Method: MethodPlatformLabel}}
	if l.ShippingType == listings.ShipLocalPickup {
		q.Type, q.AutoShip, q.Rates = QuoteLocalPickup, AutoShip{}, []Rate{}
		return q, nil
	}
	rates, _, err := s.engine.Rates(ctx, origin, to, prefs.Parcel(l))
	if err != nil {
		return nil, err
	}
	for i := range rates {
		rates[i].EstimatedDays += prefs.HandlingDays
	}
	switch {
	case l.ShippingType == listings.ShipFree:
		q.Type = QuoteFree
		rates = []CarrierRate{{Carrier: CarrierSeller, Service: ServiceFree, Amount: 0, EstimatedDays: rates[0].EstimatedDays}}
	case (l.ShippingType == listings.ShipFlatRate || l.ShippingType == listings.ShipBoth) && l.ShippingCost != nil:
		q.Type = QuoteFlatRate
		rates = []CarrierRate{{Carrier: CarrierSeller, Service: ServiceFlatRate, Amount: *l.ShippingCost,
			EstimatedDays: rates[0].EstimatedDays}}
	}
	s.sign(q, rates, prefs)
	return q, nil
}

// OrderQuote is the carrier rates for shipping a listing that was bought
// (an order's label): every engine rate whatever the listing's status and
// shipping type, signed for the listing and zip like Quote's. The caller
// has checked that the order allows it. LISTING_NOT_FOUND for an unknown
// listing; a bad zip is VALIDATION_ERROR on "zip". The seller's package
// defaults and preferred carrier apply as in Quote; the handling days do
// not, since the seller is shipping now.
func (s *Service) OrderQuote(ctx context.Context, listingID, zip string) (*Quote, error) {
	l, origin, to, prefs, err := s.load(ctx, listingID, zip)
	if err != nil {
		return nil, err
	}
	rates, _, err := s.engine.Rates(ctx, origin, to, prefs.Parcel(l))
	if err != nil {
		return nil, err
	}
	q := &Quote{Type: QuoteDynamic, ListingID: l.ID, Zip: to, LocalPickupAvailable: prefs.Pickup(l),
		AutoShip: AutoShip{Enabled: true, Method: MethodPlatformLabel}}
	s.sign(q, rates, prefs)
	return q, nil
}

// QuoteParcel prices a parcel between two ZIP codes with every carrier,
// cheapest first, unsigned (RateID ""). Bad ZIP codes are VALIDATION_ERROR
// on "from_zip" or "to_zip"; a missing weight or size takes the defaults,
// and one beyond a listing's bounds is priced at the bounds.
func (s *Service) QuoteParcel(ctx context.Context, from, to string, p Parcel) ([]Rate, error) {
	var c market.Check
	CheckZip(&c, "from_zip", from)
	CheckZip(&c, "toZip", to)
	if err := c.Err(); err != nil {
		return nil, err
	}
	rates, _, err := s.engine.Rates(ctx, from, to, p)
	if err != nil {
		return nil, err
	}
	out := make([]Rate, len(rates))
	for i, r := range rates {
		out[i] = Rate{Carrier: r.Carrier, Service: r.Service, Amount: r.Amount, EstimatedDays: r.EstimatedDays}
	}
	return out, nil
}

// VerifyRate checks a rate token (RateSigner.Verify) with errors on the
// Variant A field shippingRateId.
func (s *Service) VerifyRate(token, listingID, zip string, now time.Time) (*Rate, error) {
	return s.signer.Verify("shipping_rate_id", token, listingID, zip, now)
}

// VerifyRateAs is VerifyRate with errors on field (Variant B passes
// "carrierRateId", shown as carrier_rate_id).
func (s *Service) VerifyRateAs(field, token, listingID, zip string, now time.Time) (*Rate, error) {
	return s.signer.Verify(field, token, listingID, zip, now)
}

// load reads a visible listing and its seller's preferences, and works out
// the origin and the destination ZIP codes.
func (s *Service) load(ctx context.Context, listingID, zip string) (l *listings.Listing, origin, to string, prefs *Prefs, err error) {
	var c market.Check
	to = CheckZip(&c, "zip", zip)
	if err := c.Err(); err != nil {
		return nil, "", "", nil, err
	}
	if !market.ValidID(listingID) {
		return nil, "", "", nil, market.Errorf(market.CodeListingNotFound, "listing not found")
	}
	tx := s.store.Read()
	l, err = tx.ListingByID(ctx, listingID)
	if err != nil {
		return nil, "", "", nil, err
	}
	if !l.Status.Visible() {
		return nil, "", "", nil, market.Errorf(market.CodeListingNotFound, "listing not found")
	}
	if origin, err = s.origin(ctx, tx, l.SellerID); err != nil {
		return nil, "", "", nil, err
	}
	prefs, err = prefsOf(ctx, tx, l.SellerID)
	return l, origin, to, prefs, err
}

// origin is the seller's ship-from ZIP code, or DefaultOriginZip when the
// seller has no US ship-from address.
func (s *Service) origin(ctx context.Context, tx Tx, sellerID string) (string, error) {
	u, err := tx.UserByID(ctx, sellerID)
	if market.CodeOf(err) == market.CodeNotFound {
		return DefaultOriginZip, nil
	}
	if err != nil {
		return "", err
	}
	if a := u.ShipFrom; a != nil && (a.Country == "" || a.Country == "US") {
		if z, err := NormalizeZip(a.Zip); err == nil {
			return z, nil
		}
	}
	return DefaultOriginZip, nil
}

// sign fills q's rates from rs, each with its token, marking the seller's
// preferred ones.
func (s *Service) sign(q *Quote, rs []CarrierRate, prefs *Prefs) {
	exp := s.clock.Now().Add(RateTTL).UTC().Truncate(time.Second)
	q.Rates = make([]Rate, len(rs))
	for i, r := range rs {
		q.Rates[i] = Rate{RateID: s.signer.Sign(r, q.ListingID, q.Zip, exp), Carrier: r.Carrier, Service: r.Service,
			Amount: r.Amount, EstimatedDays: r.EstimatedDays, ExpiresAt: exp, Preferred: prefs.Prefers(r.Carrier, r.Service)}
		if i == 0 || r.Amount < q.CheapestCents {
			q.CheapestCents = r.Amount
		}
	}
}
