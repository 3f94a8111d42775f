package shipping

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strconv"
	"testing"

	"marketplace/internal/listings"
	"marketplace/internal/market"
)

func rateKey(r CarrierRate) string { return r.Carrier + "/" + r.Service }

func ratesByService(t *testing.T, rs []CarrierRate) map[string]CarrierRate {
	t.Helper()
	m := map[string]CarrierRate{}
	for _, r := range rs {
		if _, dup := m[rateKey(r)]; dup {
			t.Fatalf("service %s quoted twice", rateKey(r))
		}
		m[rateKey(r)] = r
	}
	return m
}

func quote(t *testing.T, e *Engine, from, to string, p Parcel) []CarrierRate {
	t.Helper()
	rs, _, err := e.Rates(context.Background(), from, to, p)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestEngineServicesAndOrder(t *testing.T) {
	rs := quote(t, NewEngine(), "94103", "10001", Parcel{WeightOz: 20, L: 120, W: 90, H: 40})
	got := ratesByService(t, rs)
	for _, k := range []string{"usps/ground_advantage", "usps/priority", "usps/priority_express", "ups/ground",
		"ups/2nd_day_air", "fedex/home_delivery", "fedex/express_saver"} {
		r, ok := got[k]
		if !ok {
			t.Fatalf("no %s rate in %+v", k, rs)
		}
		if r.Amount <= 0 || r.EstimatedDays < 1 {
			t.Errorf("%s: %+v", k, r)
		}
	}
	for i := 1; i < len(rs); i++ {
		if rs[i].Amount < rs[i-1].Amount {
			t.Fatalf("rates not cheapest first: %+v", rs)
		}
	}
	// Faster services cost more than the ground service of the same carrier.
	if got["usps/priority_express"].Amount <= got["usps/priority"].Amount || got["usps/priority"].Amount <= got["usps/ground_advantage"].Amount ||
		got["ups/2nd_day_air"].Amount <= got["ups/ground"].Amount || got["fedex/express_saver"].Amount <= got["fedex/home_delivery"].Amount {
		t.Errorf("service prices out of order: %+v", got)
	}
	if got["usps/priority_express"].EstimatedDays > got["usps/ground_advantage"].EstimatedDays {
		t.Errorf("express slower than ground: %+v", got)
	}
}

// The same question always gets the same answer, from any engine.
func TestEngineDeterministic(t *testing.T) {
	p := Parcel{WeightOz: 45, L: 150, W: 110, H: 70}
	first := quote(t, NewEngine(), "30303", "98101", p)
	for range 20 {
		if again := quote(t, NewEngine(BuiltinCarriers()...), "30303", "98101-1234", p); !reflect.DeepEqual(first, again) {
			t.Fatalf("rates changed:\n%+v\n%+v", first, again)
		}
	}
}

func TestBillableWeight(t *testing.T) {
	u, up := usps(), ups()
	cases := []struct {
		name      string
		p         Parcel
		usps, ups int64
	}{
		// 10 x 8 x 4 = 320 cubic inches: under USPS's cubic foot; UPS
		// 320/139 lb = 36.8 oz, so 37.
		{"small box", Parcel{WeightOz: 16, L: 100, W: 80, H: 40}, 16, 37},
		{"dense", Parcel{WeightOz: 80, L: 100, W: 80, H: 40}, 80, 80},
		// 12 x 12 x 12 is exactly a cubic foot: USPS does not apply it yet.
		{"cubic foot", Parcel{WeightOz: 16, L: 120, W: 120, H: 120}, 16, 199},
		// 20 x 20 x 20 = 8000: USPS 8000*16/166 = 771.08 -> 772; UPS 8000*16/139 = 920.9 -> 921.
		{"bulky", Parcel{WeightOz: 8, L: 200, W: 200, H: 200}, 772, 921},
		// Tenths count: 12.1 x 12 x 12 = 1742.4 cubic inches, over the cubic foot.
		{"just over", Parcel{WeightOz: 16, L: 121, W: 120, H: 120}, 168, 201},
	}
	for _, c := range cases {
		if got := u.billableOz(c.p); got != c.usps {
			t.Errorf("%s: usps billable %d oz, want %d", c.name, got, c.usps)
		}
		if got := up.billableOz(c.p); got != c.ups {
			t.Errorf("%s: ups billable %d oz, want %d", c.name, got, c.ups)
		}
	}
	// A light but bulky parcel costs what its size weighs.
	e := NewEngine()
	light := ratesByService(t, quote(t, e, "60601", "30303", Parcel{WeightOz: 8, L: 200, W: 200, H: 200}))
	heavy := ratesByService(t, quote(t, e, "60601", "30303", Parcel{WeightOz: 921, L: 100, W: 100, H: 100}))
	if light["ups/ground"].Amount != heavy["ups/ground"].Amount {
		t.Errorf("8 oz in 20in cube: %d; 921 oz small: %d", light["ups/ground"].Amount, heavy["ups/ground"].Amount)
	}
}

func TestGroundAdvantageWeightSteps(t *testing.T) {
	e := NewEngine()
	price := func(oz int) int64 {
		return ratesByService(t, quote(t, e, "10001", "10002", Parcel{WeightOz: oz, L: 60, W: 40, H: 20}))["usps/ground_advantage"].Amount
	}
	for _, c := range []struct {
		oz   int
		want int64
	}{{1, 500}, {4, 500}, {5, 585}, {8, 585}, {12, 700}, {13, 790}, {15, 790}, {16, 810}, {17, 880}, {32, 880}, {33, 950}} {
		if got := price(c.oz); got != c.want {
			t.Errorf("%d oz in zone 1: %d, want %d", c.oz, got, c.want)
		}
	}
}

// Monotonic: a heavier parcel, a bigger box or a farther zone never costs
// less on any service; a service that drops out (too heavy or too big for
// USPS) never comes back.
func TestEngineMonotonic(t *testing.T) {
	ctx := context.Background()
	carriers := BuiltinCarriers()
	priceAll := func(zone int, p Parcel) map[string]int64 {
		out := map[string]int64{}
		for _, c := range carriers {
			rs, err := c.Rates(ctx, Shipment{Route: Route{Zone: zone}, Parcel: p})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				out[rateKey(r)] = r.Amount
			}
		}
		return out
	}
	notCheaper := func(what string, before, after map[string]int64) {
		t.Helper()
		for k, a := range after {
			b, ok := before[k]
			if !ok {
				t.Fatalf("%s: %s appears only for the larger input", what, k)
			}
			if a < b {
				t.Fatalf("%s: %s got cheaper, %d -> %d", what, k, b, a)
			}
		}
	}
	sizes := []Parcel{{L: 60, W: 40, H: 10}, {L: 100, W: 80, H: 40}, {L: 120, W: 120, H: 120}, {L: 240, W: 180, H: 120},
		{L: 400, W: 300, H: 300}, {L: 1080, W: 1080, H: 1080}}
	for zone := 1; zone <= 8; zone++ {
		for _, size := range sizes {
			var prev map[string]int64
			for oz := 1; oz <= MaxWeightOz; oz += 1 + oz/8 {
				p := size
				p.WeightOz = oz
				cur := priceAll(zone, p)
				if prev != nil {
					notCheaper("weight "+strconv.Itoa(oz), prev, cur)
				}
				if zone > 1 {
					notCheaper("zone "+strconv.Itoa(zone), priceAll(zone-1, p), cur)
				}
				prev = cur
			}
		}
		for _, oz := range []int{4, 16, 100, 1200, 2400} {
			var prev map[string]int64
			for side := 10; side <= 1080; side += 17 {
				cur := priceAll(zone, Parcel{WeightOz: oz, L: side, W: max(side/2, 1), H: max(side/3, 1)})
				if prev != nil {
					notCheaper("side "+strconv.Itoa(side), prev, cur)
				}
				prev = cur
			}
		}
	}
}

func TestCarrierLimits(t *testing.T) {
	e := NewEngine()
	has := func(rs []CarrierRate, carrier string) bool {
		for _, r := range rs {
			if r.Carrier == carrier {
				return true
			}
		}
		return false
	}
	at70 := quote(t, e, "10001", "90012", Parcel{WeightOz: 70 * 16, L: 200, W: 200, H: 200})
	over70 := quote(t, e, "10001", "90012", Parcel{WeightOz: 70*16 + 1, L: 200, W: 200, H: 200})
	if !has(at70, "usps") || has(over70, "usps") || !has(over70, "ups") || !has(over70, "fedex") {
		t.Fatalf("USPS takes up to 70 lb: %+v / %+v", at70, over70)
	}
	// The biggest box a listing may describe still gets UPS and FedEx rates,
	// with the oversize fee.
	huge := ratesByService(t, quote(t, e, "10001", "90012", Parcel{WeightOz: MaxWeightOz, L: 1080, W: 1080, H: 1080}))
	if _, ok := huge["usps/priority"]; ok || huge["ups/ground"].Amount == 0 || huge["fedex/home_delivery"].Amount == 0 {
		t.Fatalf("huge parcel: %+v", huge)
	}
	// 40 x 30 x 20: length plus girth 140 in, over UPS's 130: the fee applies.
	big := Parcel{WeightOz: 320, L: 400, W: 300, H: 200}
	small := Parcel{WeightOz: 320, L: 400, W: 250, H: 150} // 120 in
	up := ups()
	bigR, _ := up.Rates(context.Background(), Shipment{Route: Route{Zone: 4}, Parcel: big})
	smallR, _ := up.Rates(context.Background(), Shipment{Route: Route{Zone: 4}, Parcel: small})
	diff := bigR[0].Amount - smallR[0].Amount
	extra := up.services[0].price(up.billableOz(big), 3) - up.services[0].price(up.billableOz(small), 3)
	if diff != extra+up.oversizeFee {
		t.Fatalf("oversize: %d more, want %d + fee %d", diff, extra, up.oversizeFee)
	}
}

func TestRemoteRoutesAreSlowerOnGround(t *testing.T) {
	e := NewEngine()
	p := Parcel{WeightOz: 20}
	mainland := ratesByService(t, quote(t, e, "10001", "90012", p)) // zone 8
	hawaii := ratesByService(t, quote(t, e, "10001", "96813", p))   // zone 8, remote
	if hawaii["usps/ground_advantage"].Amount != mainland["usps/ground_advantage"].Amount ||
		hawaii["usps/ground_advantage"].EstimatedDays != mainland["usps/ground_advantage"].EstimatedDays+3 ||
		hawaii["usps/priority_express"].EstimatedDays != mainland["usps/priority_express"].EstimatedDays {
		t.Fatalf("mainland %+v\nhawaii %+v", mainland, hawaii)
	}
}

func TestParcelDefaults(t *testing.T) {
	def := Parcel{WeightOz: DefaultWeightOz, L: 100, W: 80, H: 40}
	if got := (Parcel{}).withDefaults(); got != def {
		t.Fatalf("empty parcel: %+v", got)
	}
	if got := (Parcel{WeightOz: 5, L: 50, W: 0, H: 20}).withDefaults(); got != (Parcel{WeightOz: 5, L: 100, W: 80, H: 40}) {
		t.Fatalf("a missing side takes the default box: %+v", got)
	}
	if got := (Parcel{WeightOz: 99999, L: 5000, W: 5000, H: 5000}).withDefaults(); got != (Parcel{WeightOz: MaxWeightOz, L: 1080, W: 1080, H: 1080}) {
		t.Fatalf("clamped: %+v", got)
	}
	e := NewEngine()
	if a, b := quote(t, e, "10001", "60601", Parcel{}), quote(t, e, "10001", "60601", def); !reflect.DeepEqual(a, b) {
		t.Fatalf("defaults: %+v vs %+v", a, b)
	}
}

func TestParcelOf(t *testing.T) {
	cases := []struct {
		weight int
		dims   listings.Dimensions
		want   Parcel
	}{
		{32, listings.Dimensions{L: 10, W: 8.5, H: 4}, Parcel{WeightOz: 32, L: 100, W: 85, H: 40}},
		{7, listings.Dimensions{L: 0.3, W: 4.51, H: 1.01}, Parcel{WeightOz: 7, L: 3, W: 46, H: 11}},
		{0, listings.Dimensions{}, Parcel{WeightOz: DefaultWeightOz, L: 100, W: 80, H: 40}},
		{10, listings.Dimensions{L: math.NaN(), W: 2, H: 2}, Parcel{WeightOz: 10, L: 100, W: 80, H: 40}},
		{10, listings.Dimensions{L: math.Inf(1), W: 2, H: 2}, Parcel{WeightOz: 10, L: 1080, W: 20, H: 20}},
	}
	for _, c := range cases {
		if got := ParcelOf(&listings.Listing{WeightOz: c.weight, Dimensions: c.dims}); got != c.want {
			t.Errorf("ParcelOf(%d, %+v) = %+v, want %+v", c.weight, c.dims, got, c.want)
		}
	}
}

type failingCarrier struct{}

func (failingCarrier) Name() string { return "down" }
func (failingCarrier) Rates(context.Context, Shipment) ([]CarrierRate, error) {
	return nil, errors.New("carrier API timed out")
}

// A carrier that fails is left out; with none left the answer is
// SERVICE_UNAVAILABLE, never a half answer or an internal error.
func TestEngineCarrierFailure(t *testing.T) {
	rs := quote(t, NewEngine(failingCarrier{}, usps()), "10001", "60601", Parcel{})
	if len(rs) != 3 || rs[0].Carrier != "usps" {
		t.Fatalf("rates %+v", rs)
	}
	_, _, err := NewEngine(failingCarrier{}).Rates(context.Background(), "10001", "60601", Parcel{})
	if market.CodeOf(err) != market.CodeUnavailable {
		t.Fatalf("all carriers down: %v", err)
	}
	if _, _, err := NewEngine().Rates(context.Background(), "10001", "6060", Parcel{}); !errors.Is(err, ErrZip) {
		t.Fatalf("bad zip: %v", err)
	}
}

func TestFormatCents(t *testing.T) {
	for c, want := range map[int64]string{0: "0.00", 5: "0.05", 10: "0.10", 99: "0.99", 100: "1.00", 1234: "12.34",
		100000: "1000.00", -5: "-0.05", -1234: "-12.34", math.MinInt64: "-92233720368547758.08"} {
		if got := FormatCents(c); got != want {
			t.Errorf("FormatCents(%d) = %q, want %q", c, got, want)
		}
	}
}
