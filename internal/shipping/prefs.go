package shipping

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/listings"
	"marketplace/internal/market"
)

// Prefs are a seller's shipping preferences (PUT /auth/me/shipping-prefs).
// The rate engine quotes the seller's listings with them and the label step
// buys with them; a seller who never saved any has DefaultPrefs.
type Prefs struct {
	UserID string
	// AutoLabel: the platform buys the label of each paid order that ships
	// at once, as a system job, and the order is shipped on it.
	AutoLabel bool
	// PreferredCarrier is "" for none; PreferredService "" for any service
	// of that carrier.
	PreferredCarrier string
	PreferredService string
	// LocalPickup offers pickup on the seller's listings whose shipping
	// type does not settle it (free, flat_rate, calculated).
	LocalPickup bool
	// HandlingDays is added to every pre-checkout quote's estimated days:
	// the time the seller takes to hand the parcel over.
	HandlingDays int
	// Package is the parcel quoted for a listing that gives no weight or
	// size of its own; nil for the built-in one.
	Package   *Package
	UpdatedAt *time.Time // nil when never saved
}

// Package is a seller's usual parcel.
type Package struct {
	WeightOz   int
	Dimensions listings.Dimensions // inches
}

// Bounds of the preferences.
const (
	DefaultHandlingDays = 1
	MaxHandlingDays     = 10
	MinPackageIn        = 1
)

// DefaultPrefs are the preferences of a seller who saved none: no automatic
// labels, no preferred carrier, no pickup beyond what listings say, one
// handling day, the built-in parcel.
func DefaultPrefs(userID string) *Prefs {
	return &Prefs{UserID: userID, HandlingDays: DefaultHandlingDays}
}

// Prefers reports whether a rate is the seller's preferred one: of the
// preferred carrier and, when one is set, the preferred service.
func (p *Prefs) Prefers(carrier, service string) bool {
	return p.PreferredCarrier != "" && carrier == p.PreferredCarrier &&
		(p.PreferredService == "" || service == p.PreferredService)
}

// Pickup reports whether a listing of the seller's may be collected: always
// for local_pickup and both listings; for the others (their type says only
// how they ship) when the seller offers pickup.
func (p *Prefs) Pickup(l *listings.Listing) bool {
	return l.ShippingType == listings.ShipLocalPickup || l.ShippingType == listings.ShipBoth || p.LocalPickup
}

// Parcel is the parcel a listing of the seller's ships in: the listing's
// own weight and size, the seller's package defaults for what it leaves
// out, and the built-in defaults after that.
func (p *Prefs) Parcel(l *listings.Listing) Parcel {
	return parcelWith(l, p.Package)
}

// Prefs returns userID's shipping preferences, DefaultPrefs when never saved.
func (s *Service) Prefs(ctx context.Context, userID string) (*Prefs, error) {
	return prefsOf(ctx, s.store.Read(), userID)
}

func prefsOf(ctx context.Context, tx Tx, userID string) (*Prefs, error) {
	p, err := tx.ShippingPrefs(ctx, userID)
	if market.CodeOf(err) == market.CodeNotFound {
		return DefaultPrefs(userID), nil
	}
	return p, err
}

// PrefsUpdate changes the fields that are set (market.Opt: absent keeps the
// saved value; null clears the nullable ones and is refused for the others).
type PrefsUpdate struct {
	AutoLabel        market.Opt[bool]
	PreferredCarrier market.Opt[string]
	PreferredService market.Opt[string]
	LocalPickup      market.Opt[bool]
	HandlingDays     market.Opt[int]
	Package          market.Opt[PackageInput]
}

// PackageInput is a package default as sent: every field is required.
type PackageInput struct {
	WeightOz *int
	LengthIn *float64
	WidthIn  *float64
	HeightIn *float64
}

// SetPrefs changes the caller's shipping preferences and returns them all.
// Every bad field is a VALIDATION_ERROR naming it. A preferred carrier is
// one the engine quotes (any case); a preferred service one of that
// carrier's, and changing the carrier without naming a service clears the
// service. autoLabel true needs a ship-from address, which the label is
// bought from.
func (s *Service) SetPrefs(ctx context.Context, actor market.Actor, in PrefsUpdate) (*Prefs, error) {
	var out *Prefs
	err := s.store.InTx(ctx, func(tx Tx) error {
		// Two saves at once must not each keep only their own fields.
		if err := tx.LockUser(ctx, actor.UserID); err != nil {
			return err
		}
		p, err := prefsOf(ctx, tx, actor.UserID)
		if err != nil {
			return err
		}
		if err := s.applyPrefs(ctx, tx, p, in); err != nil {
			return err
		}
		now := s.clock.Now().UTC()
		p.UpdatedAt = &now
		if err := tx.PutShippingPrefs(ctx, p); err != nil {
			return err
		}
		out = p
		return events.Record(ctx, tx, now, actor, "user.shipping_prefs_updated", "user", actor.UserID, map[string]any{
			"auto_label": p.AutoLabel, "preferred_carrier": p.PreferredCarrier, "preferred_service": p.PreferredService,
			"local_pickup": p.LocalPickup, "handling_days": p.HandlingDays, "package_defaults": p.Package != nil})
	})
	return out, err
}

// applyPrefs validates in and applies it to p.
func (s *Service) applyPrefs(ctx context.Context, tx Tx, p *Prefs, in PrefsUpdate) error {
	var c market.Check
	flag := func(field string, o market.Opt[bool], dst *bool) {
		if o.Set && c.Require(!o.Null, field, "must be true or false") {
			*dst = o.Value
		}
	}
	flag("auto_label", in.AutoLabel, &p.AutoLabel)
	flag("local_pickup", in.LocalPickup, &p.LocalPickup)
	if o := in.HandlingDays; o.Set &&
		c.Require(!o.Null && o.Value >= 0 && o.Value <= MaxHandlingDays, "handling_days", "must be a whole number of days from 0 to "+strconv.Itoa(MaxHandlingDays)) {
		p.HandlingDays = o.Value
	}

	carriers := s.engine.Carriers()
	carrierOK := true
	if o := in.PreferredCarrier; o.Set {
		name := strings.ToLower(strings.TrimSpace(o.Value))
		if carrierOK = c.Require(name == "" || slices.Contains(carriers, name), "preferred_carrier",
			"must be one of "+strings.Join(carriers, ", ")+", or null for none"); carrierOK {
			if name != p.PreferredCarrier {
				p.PreferredService = "" // a service belongs to its carrier
			}
			p.PreferredCarrier = name
		}
	}
	if o := in.PreferredService; o.Set && carrierOK {
		name := strings.ToLower(strings.TrimSpace(o.Value))
		services, listed := s.engine.Services(p.PreferredCarrier)
		switch {
		case name == "":
			p.PreferredService = ""
		case p.PreferredCarrier == "":
			c.Add("preferred_service", "needs a preferredCarrier")
		case listed && !slices.Contains(services, name):
			c.Add("preferred_service", "must be a service of "+p.PreferredCarrier+": "+strings.Join(services, ", "))
		case len(name) > maxServiceName:
			c.Add("preferred_service", "is not a service of "+p.PreferredCarrier)
		default:
			p.PreferredService = name
		}
	}

	if o := in.Package; o.Set {
		p.Package = nil
		if !o.Null {
			p.Package = checkPackage(&c, o.Value)
		}
	}
	if p.AutoLabel {
		u, err := tx.UserByID(ctx, p.UserID)
		if err != nil {
			return err
		}
		c.Require(u.ShipFrom != nil, "auto_label", "needs a ship-from address to buy labels from: set it with PUT /api/v1/auth/me/address first")
	}
	return c.Err()
}

// maxServiceName bounds a service name the engine cannot list.
const maxServiceName = 60

// checkPackage validates package defaults: whole ounces within a listing's
// weight bounds, each side within a listing's size bounds.
func checkPackage(c *market.Check, in PackageInput) *Package {
	const prefix = "package_defaults."
	ok := true
	if in.WeightOz == nil || *in.WeightOz < 1 || *in.WeightOz > listings.MaxWeightOz {
		c.Add(prefix+"weight_oz", "is required: whole ounces from 1 to "+strconv.Itoa(listings.MaxWeightOz))
		ok = false
	}
	side := func(field string, v *float64) float64 {
		if v == nil || !(*v >= MinPackageIn && *v <= listings.MaxDimensionIn) { // also NaN
			c.Add(prefix+field, "is required: inches from "+strconv.Itoa(MinPackageIn)+" to "+strconv.Itoa(listings.MaxDimensionIn))
			ok = false
			return 0
		}
		return *v
	}
	d := listings.Dimensions{L: side("length_in", in.LengthIn), W: side("width_in", in.WidthIn), H: side("height_in", in.HeightIn)}
	if !ok {
		return nil
	}
	return &Package{WeightOz: *in.WeightOz, Dimensions: d}
}
