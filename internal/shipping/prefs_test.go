package shipping

import (
	"slices"
	"testing"

	"marketplace/internal/listings"
)

func TestPrefsParcel(t *testing.T) {
	pkg := &Package{WeightOz: 40, Dimensions: listings.Dimensions{L: 14, W: 10.5, H: 4}}
	cases := []struct {
		name   string
		weight int
		dims   listings.Dimensions
		pkg    *Package
		want   Parcel
	}{
		{"the listing's own", 32, listings.Dimensions{L: 12, W: 10, H: 6}, pkg, Parcel{WeightOz: 32, L: 120, W: 100, H: 60}},
		{"no weight", 0, listings.Dimensions{L: 12, W: 10, H: 6}, pkg, Parcel{WeightOz: 40, L: 120, W: 100, H: 60}},
		{"no size", 32, listings.Dimensions{}, pkg, Parcel{WeightOz: 32, L: 140, W: 105, H: 40}},
		{"a side missing", 32, listings.Dimensions{L: 12, W: 10}, pkg, Parcel{WeightOz: 32, L: 140, W: 105, H: 40}},
		{"nothing", 0, listings.Dimensions{}, pkg, Parcel{WeightOz: 40, L: 140, W: 105, H: 40}},
		{"no defaults", 0, listings.Dimensions{}, nil, Parcel{WeightOz: DefaultWeightOz, L: 100, W: 80, H: 40}},
	}
	for _, c := range cases {
		p := &Prefs{Package: c.pkg}
		if got := p.Parcel(&listings.Listing{WeightOz: c.weight, Dimensions: c.dims}); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestPrefsPickupAndPreference(t *testing.T) {
	off, on := DefaultPrefs("u"), &Prefs{LocalPickup: true}
	for _, st := range []listings.ShippingType{listings.ShipFree, listings.ShipFlatRate, listings.ShipCalculated,
		listings.ShipLocalPickup, listings.ShipBoth} {
		l := &listings.Listing{ShippingType: st}
		says := st == listings.ShipLocalPickup || st == listings.ShipBoth
		if off.Pickup(l) != says || !on.Pickup(l) {
			t.Errorf("%s: pickup %v without the preference, %v with it", st, off.Pickup(l), on.Pickup(l))
		}
	}

	carrier := &Prefs{PreferredCarrier: "ups"}
	service := &Prefs{PreferredCarrier: "ups", PreferredService: "ground"}
	for _, c := range []struct {
		carrier, service  string
		byCarrier, byBoth bool
	}{
		{"ups", "ground", true, true},
		{"ups", "2nd_day_air", true, false},
		{"usps", "ground", false, false},
		{CarrierSeller, ServiceFlatRate, false, false},
	} {
		if carrier.Prefers(c.carrier, c.service) != c.byCarrier || service.Prefers(c.carrier, c.service) != c.byBoth ||
			DefaultPrefs("u").Prefers(c.carrier, c.service) {
			t.Errorf("%s/%s: preferred %v by carrier, %v by carrier and service", c.carrier, c.service,
				carrier.Prefers(c.carrier, c.service), service.Prefers(c.carrier, c.service))
		}
	}
}

func TestEngineServices(t *testing.T) {
	e := NewEngine()
	if got := e.Carriers(); !slices.Equal(got, []string{"usps", "ups", "fedex"}) {
		t.Fatalf("carriers %v", got)
	}
	if got, listed := e.Services("ups"); !listed || !slices.Equal(got, []string{"ground", "2nd_day_air"}) {
		t.Fatalf("ups services %v %v", got, listed)
	}
	if _, listed := e.Services("dhl"); listed {
		t.Fatal("dhl is not the engine's")
	}
	if _, listed := NewEngine(failingCarrier{}).Services("down"); listed {
		t.Fatal("a carrier without a list lists services")
	}
}
