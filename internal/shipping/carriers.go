package shipping

import (
	"context"
	"math"

	"marketplace/internal/listings"
)

// Parcel is what a carrier prices: the weight and the outer size of the box.
// Sizes are in tenths of an inch so that the arithmetic stays in integers.
type Parcel struct {
	WeightOz int
	L, W, H  int // tenths of an inch
}

// Defaults for a listing that does not say what it weighs or measures: a
// pound, in a 10 x 8 x 4 inch box.
const (
	DefaultWeightOz = 16
	defaultL        = 100
	defaultW        = 80
	defaultH        = 40
)

// Bounds of a parcel the engine prices: those of a listing (150 lb, 108
// inches a side).
const (
	MaxWeightOz = listings.MaxWeightOz
	maxSide     = listings.MaxDimensionIn * 10
)

// ParcelOf is the parcel a listing ships in: its weight and dimensions,
// rounded up to whole ounces and tenths of an inch, with the defaults for
// what it leaves out.
func ParcelOf(l *listings.Listing) Parcel { return parcelWith(l, nil) }

// parcelWith is ParcelOf with the seller's package defaults (when pkg is
// not nil) standing in for a missing weight or size before the built-in
// ones do.
func parcelWith(l *listings.Listing, pkg *Package) Parcel {
	p := Parcel{WeightOz: l.WeightOz, L: tenths(l.Dimensions.L), W: tenths(l.Dimensions.W), H: tenths(l.Dimensions.H)}
	if pkg != nil {
		if p.WeightOz <= 0 {
			p.WeightOz = pkg.WeightOz
		}
		if p.L <= 0 || p.W <= 0 || p.H <= 0 {
			p.L, p.W, p.H = tenths(pkg.Dimensions.L), tenths(pkg.Dimensions.W), tenths(pkg.Dimensions.H)
		}
	}
	return p.withDefaults()
}

// tenths is a side in inches as whole tenths of an inch, rounded up; 0 for
// none, and at most the bound.
func tenths(in float64) int {
	switch {
	case !(in > 0): // also NaN
		return 0
	case in > listings.MaxDimensionIn:
		return maxSide
	}
	// The epsilon keeps 0.3 inches at 3 tenths: 0.3*10 is a hair over 3.
	return int(math.Ceil(in*10 - 1e-9))
}

// withDefaults fills a missing weight, and a missing size (any side not
// given), with the defaults, and clamps what is beyond the bounds.
func (p Parcel) withDefaults() Parcel {
	if p.WeightOz <= 0 {
		p.WeightOz = DefaultWeightOz
	}
	p.WeightOz = min(p.WeightOz, MaxWeightOz)
	if p.L <= 0 || p.W <= 0 || p.H <= 0 {
		p.L, p.W, p.H = defaultL, defaultW, defaultH
	}
	p.L, p.W, p.H = min(p.L, maxSide), min(p.W, maxSide), min(p.H, maxSide)
	return p
}

// volume is the box's volume in thousandths of a cubic inch.
func (p Parcel) volume() int64 { return int64(p.L) * int64(p.W) * int64(p.H) }

// lengthPlusGirth is the longest side plus twice the other two, in tenths
// of an inch: the carriers' measure of an oversize box.
func (p Parcel) lengthPlusGirth() int {
	long := max(p.L, p.W, p.H)
	return long + 2*(p.L+p.W+p.H-long)
}

// Shipment is one parcel going from one ZIP code to another.
type Shipment struct {
	FromZip, ToZip string // 5-digit
	Route          Route
	Parcel         Parcel
}

// CarrierRate is one service's price for a shipment.
type CarrierRate struct {
	Carrier       string
	Service       string
	Amount        int64 // cents
	EstimatedDays int
}

// Carrier prices shipments. The built-in carriers compute rates from
// tables; an adapter for a carrier's own API would implement the same
// interface. A service that cannot take the parcel is left out, not an error.
type Carrier interface {
	Name() string
	Rates(ctx context.Context, s Shipment) ([]CarrierRate, error)
}

// service is one built-in service: prices by zone (index 0 is zone 1).
type service struct {
	name string
	// light prices parcels under a pound by weight step (lightOz), when the
	// service has such steps (USPS Ground Advantage).
	lightOz []int
	light   [][8]int64
	// first is the price of the first pound (or part), perLb of each
	// further pound (or part).
	first, perLb [8]int64
	days         [8]int
	// remoteDays is added to days when the route is Remote.
	remoteDays int
}

// builtinCarrier prices from its tables. Dimensional weight is volume over
// dimDivisor (cubic inches per pound); dimMinVolume (thousandths of a cubic
// inch) is the size below which a carrier does not apply it. Parcels over
// maxWeightOz or maxLengthGirth are refused; those over oversizeAt pay
// oversizeFee.
type builtinCarrier struct {
	name           string
	dimDivisor     int64
	dimMinVolume   int64
	maxWeightOz    int
	maxLengthGirth int
	oversizeAt     int
	oversizeFee    int64
	services       []service
}

func (c *builtinCarrier) Name() string { return c.name }

// Services names the carrier's services, in its table's order.
func (c *builtinCarrier) Services() []string {
	out := make([]string, len(c.services))
	for i, sv := range c.services {
		out[i] = sv.name
	}
	return out
}

// Rates prices every service of the carrier that takes the parcel.
func (c *builtinCarrier) Rates(_ context.Context, s Shipment) ([]CarrierRate, error) {
	p := s.Parcel.withDefaults()
	if p.WeightOz > c.maxWeightOz || p.lengthPlusGirth() > c.maxLengthGirth {
		return nil, nil
	}
	z := min(max(s.Route.Zone, 1), 8) - 1
	oz := c.billableOz(p)
	out := make([]CarrierRate, 0, len(c.services))
	for _, sv := range c.services {
		amount := sv.price(oz, z)
		if p.lengthPlusGirth() > c.oversizeAt {
			amount += c.oversizeFee
		}
		days := sv.days[z]
		if s.Route.Remote {
			days += sv.remoteDays
		}
		out = append(out, CarrierRate{Carrier: c.name, Service: sv.name, Amount: amount, EstimatedDays: days})
	}
	return out, nil
}

// billableOz is the greater of the actual and the dimensional weight.
func (c *builtinCarrier) billableOz(p Parcel) int64 {
	oz := int64(p.WeightOz)
	if v := p.volume(); v > c.dimMinVolume {
		// volume/1000 cubic inches / divisor pounds, in ounces, rounded up.
		dim := ceilDiv(v*16, c.dimDivisor*1000)
		oz = max(oz, dim)
	}
	return oz
}

// price is the service's price for oz billable ounces in zone index z.
func (sv *service) price(oz int64, z int) int64 {
	for i, step := range sv.lightOz {
		if oz <= int64(step) {
			return sv.light[i][z]
		}
	}
	lbs := max(ceilDiv(oz, 16), 1)
	return sv.first[z] + sv.perLb[z]*(lbs-1)
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// BuiltinCarriers are the carriers the service quotes with out of the box.
// The tables are the service's own, shaped like the carriers' retail
// prices: dearer by zone and by pound, oversize boxes surcharged.
func BuiltinCarriers() []Carrier {
	return []Carrier{usps(), ups(), fedex()}
}

// anySize lets a carrier take every box a listing may describe (oversize
// ones with the fee) so that every listing has a rate: a real carrier would
// send the biggest to freight.
const anySize = 5 * maxSide

func usps() *builtinCarrier {
	return &builtinCarrier{
		name: "usps", dimDivisor: 166, dimMinVolume: 1728 * 1000,
		maxWeightOz: 70 * 16, maxLengthGirth: 1300, oversizeAt: 1080, oversizeFee: 1500,
		services: []service{
			{
				name:    "ground_advantage",
				lightOz: []int{4, 8, 12, 15},
				light: [][8]int64{
					{500, 505, 510, 520, 530, 545, 560, 590},
					{585, 590, 600, 615, 630, 650, 670, 700},
					{700, 705, 720, 740, 760, 785, 810, 850},
					{790, 800, 820, 850, 880, 915, 955, 1005},
				},
				first:      [8]int64{810, 820, 840, 870, 900, 935, 975, 1025},
				perLb:      [8]int64{70, 95, 130, 190, 250, 320, 390, 470},
				days:       [8]int{2, 2, 3, 3, 4, 4, 5, 5},
				remoteDays: 3,
			},
			{
				name:       "priority",
				first:      [8]int64{925, 975, 1015, 1075, 1150, 1260, 1380, 1520},
				perLb:      [8]int64{95, 130, 175, 260, 360, 480, 600, 720},
				days:       [8]int{1, 2, 2, 2, 3, 3, 3, 3},
				remoteDays: 1,
			},
			{
				name:  "priority_express",
				first: [8]int64{2895, 3050, 3250, 3450, 3700, 3950, 4200, 4550},
				perLb: [8]int64{150, 200, 300, 400, 520, 640, 780, 950},
				days:  [8]int{1, 1, 1, 2, 2, 2, 2, 2},
			},
		},
	}
}

func ups() *builtinCarrier {
	return &builtinCarrier{
		name: "ups", dimDivisor: 139,
		maxWeightOz: 150 * 16, maxLengthGirth: anySize, oversizeAt: 1300, oversizeFee: 4500,
		services: []service{
			{
				name:       "ground",
				first:      [8]int64{1050, 1090, 1150, 1210, 1290, 1360, 1420, 1480},
				perLb:      [8]int64{55, 70, 95, 140, 190, 240, 290, 340},
				days:       [8]int{1, 2, 3, 3, 4, 4, 5, 5},
				remoteDays: 4,
			},
			{
				name:  "2nd_day_air",
				first: [8]int64{2150, 2250, 2400, 2600, 2850, 3100, 3350, 3600},
				perLb: [8]int64{190, 240, 310, 400, 500, 600, 700, 800},
				days:  [8]int{2, 2, 2, 2, 2, 2, 2, 2},
			},
		},
	}
}

func fedex() *builtinCarrier {
	return &builtinCarrier{
		name: "fedex", dimDivisor: 139,
		maxWeightOz: 150 * 16, maxLengthGirth: anySize, oversizeAt: 1300, oversizeFee: 4200,
		services: []service{
			{
				name:       "home_delivery",
				first:      [8]int64{1075, 1105, 1160, 1215, 1285, 1350, 1405, 1460},
				perLb:      [8]int64{58, 72, 97, 138, 186, 236, 285, 333},
				days:       [8]int{1, 2, 3, 3, 4, 4, 5, 5},
				remoteDays: 4,
			},
			{
				name:  "express_saver",
				first: [8]int64{2050, 2150, 2300, 2480, 2700, 2950, 3200, 3450},
				perLb: [8]int64{180, 230, 300, 390, 490, 590, 690, 790},
				days:  [8]int{3, 3, 3, 3, 3, 3, 3, 3},
			},
		},
	}
}
