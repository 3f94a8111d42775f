package shipping

import (
	"errors"
	"strings"
)

// DefaultOriginZip is where a parcel is taken to start when its seller has
// no US ship-from address: Kansas City, near the middle of the contiguous
// states, so that a quote for an unknown origin errs least in either
// direction.
const DefaultOriginZip = "64106"

// ErrZip is returned for anything that is not a US ZIP code in service.
var ErrZip = errors.New("must be a US ZIP code (12345 or 12345-6789)")

// NormalizeZip checks a US ZIP code, 5 digits or ZIP+4, and returns its
// 5-digit form: rates depend on the first three digits only, and a quote
// made for 94103-1234 holds for 94103.
func NormalizeZip(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case len(s) == 5:
	case len(s) == 10 && s[5] == '-' && digits(s[6:]):
	default:
		return "", ErrZip
	}
	if !digits(s[:5]) {
		return "", ErrZip
	}
	if _, ok := areaOf(s); !ok {
		return "", ErrZip
	}
	return s[:5], nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Route is where a parcel travels: the carriers' zone (1 local to 8
// farthest), the distance in miles between the two areas' centres, and
// whether it leaves or enters a state or territory outside the contiguous
// 48 (slower on ground services).
type Route struct {
	Zone   int
	Miles  int
	Remote bool
}

// RouteBetween works out the route between two ZIP codes (either form).
//
// Zones follow the carriers' distance bands (zone 1 up to 50 miles, 2 to 150,
// 3 to 300, 4 to 600, 5 to 1000, 6 to 1400, 7 to 1800, 8 beyond), measured
// between the centres of the areas the first three digits fall in. The same
// three digits are zone 1; other digits at least zone 2; any trip that
// leaves or enters Alaska, Hawaii or a territory is zone 8.
func RouteBetween(from, to string) (Route, error) {
	f, err := NormalizeZip(from)
	if err != nil {
		return Route{}, err
	}
	t, err := NormalizeZip(to)
	if err != nil {
		return Route{}, err
	}
	a, _ := areaOf(f)
	b, _ := areaOf(t)
	miles := distanceMiles(a, b)
	r := Route{Miles: miles, Remote: a.remote || b.remote}
	switch {
	case f[:3] == t[:3]:
		r.Zone = 1
	case r.Remote && a.state != b.state:
		r.Zone = 8
	default:
		r.Zone = max(zoneForMiles(miles), 2)
	}
	return r, nil
}

// zoneBands are the upper mileage bounds of zones 1 to 7.
var zoneBands = [...]int{50, 150, 300, 600, 1000, 1400, 1800}

func zoneForMiles(miles int) int {
	for i, limit := range zoneBands {
		if miles <= limit {
			return i + 1
		}
	}
	return 8
}

// area is a range of three-digit ZIP prefixes served from about the same
// place. lat and lon are in hundredths of a degree.
type area struct {
	lo, hi   int
	state    string
	lat, lon int
	remote   bool
}

// areas cover the prefixes 005 to 999 without gaps, in order; prefixes the
// postal service has not assigned fall in with their neighbours. Military
// post (AA, AE, AP) is placed at its gateway (Miami, New York, San
// Francisco), the way carriers price it. The centres are approximate: they
// pick the zone, and zones are bands hundreds of miles wide.
var areas = []area{
	{5, 5, "NY", 4081, -7304, false},
	{6, 7, "PR", 1822, -6643, true},
	{8, 8, "VI", 1834, -6490, true},
	{9, 9, "PR", 1840, -6606, true},
	{10, 13, "MA", 4210, -7259, false},
	{14, 27, "MA", 4236, -7106, false},
	{28, 29, "RI", 4182, -7141, false},
	{30, 38, "NH", 4300, -7146, false},
	{39, 49, "ME", 4410, -7020, false},
	{50, 59, "VT", 4426, -7258, false},
	{60, 69, "CT", 4160, -7270, false},
	{70, 76, "NJ", 4073, -7417, false},
	{77, 89, "NJ", 4000, -7460, false},
	{90, 99, "AE", 4064, -7378, false},
	{100, 119, "NY", 4071, -7396, false},
	{120, 129, "NY", 4265, -7375, false},
	{130, 139, "NY", 4305, -7615, false},
	{140, 149, "NY", 4289, -7888, false},
	{150, 168, "PA", 4044, -7999, false},
	{169, 179, "PA", 4027, -7688, false},
	{180, 196, "PA", 3995, -7517, false},
	{197, 199, "DE", 3974, -7555, false},
	{200, 205, "DC", 3890, -7704, false},
	{206, 219, "MD", 3929, -7661, false},
	{220, 229, "VA", 3800, -7750, false},
	{230, 239, "VA", 3720, -7680, false},
	{240, 246, "VA", 3727, -7994, false},
	{247, 269, "WV", 3835, -8163, false},
	{270, 279, "NC", 3590, -7900, false},
	{280, 289, "NC", 3540, -8150, false},
	{290, 299, "SC", 3400, -8103, false},
	{300, 319, "GA", 3375, -8439, false},
	{320, 324, "FL", 3030, -8250, false},
	{325, 329, "FL", 2854, -8138, false},
	{330, 339, "FL", 2630, -8080, false},
	{340, 340, "AA", 2579, -8029, false},
	{341, 349, "FL", 2795, -8246, false},
	{350, 369, "AL", 3290, -8670, false},
	{370, 374, "TN", 3616, -8678, false},
	{375, 375, "TN", 3515, -9005, false},
	{376, 379, "TN", 3596, -8392, false},
	{380, 385, "TN", 3515, -9005, false},
	{386, 397, "MS", 3230, -9018, false},
	{398, 399, "GA", 3160, -8420, false},
	{400, 429, "KY", 3780, -8570, false},
	{430, 438, "OH", 3996, -8300, false},
	{439, 449, "OH", 4130, -8160, false},
	{450, 459, "OH", 3950, -8430, false},
	{460, 479, "IN", 3977, -8616, false},
	{480, 489, "MI", 4250, -8330, false},
	{490, 499, "MI", 4300, -8570, false},
	{500, 529, "IA", 4160, -9360, false},
	{530, 549, "WI", 4320, -8850, false},
	{550, 568, "MN", 4498, -9327, false},
	{569, 569, "DC", 3890, -7704, false},
	{570, 579, "SD", 4400, -9850, false},
	{580, 589, "ND", 4700, -9850, false},
	{590, 599, "MT", 4660, -11000, false},
	{600, 609, "IL", 4188, -8763, false},
	{610, 629, "IL", 4000, -8930, false},
	{630, 639, "MO", 3863, -9020, false},
	{640, 659, "MO", 3850, -9350, false},
	{660, 679, "KS", 3820, -9730, false},
	{680, 699, "NE", 4110, -9750, false},
	{700, 714, "LA", 3050, -9150, false},
	{715, 729, "AR", 3475, -9229, false},
	{730, 749, "OK", 3547, -9752, false},
	{750, 759, "TX", 3278, -9680, false},
	{760, 769, "TX", 3250, -9850, false},
	{770, 779, "TX", 2976, -9537, false},
	{780, 789, "TX", 2990, -9810, false},
	{790, 799, "TX", 3320, -10200, false},
	{800, 819, "CO", 3974, -10499, false},
	{820, 831, "WY", 4280, -10700, false},
	{832, 839, "ID", 4360, -11620, false},
	{840, 849, "UT", 4076, -11189, false},
	{850, 869, "AZ", 3345, -11207, false},
	{870, 884, "NM", 3508, -10665, false},
	{885, 888, "TX", 3176, -10649, false},
	{889, 891, "NV", 3617, -11514, false},
	{892, 899, "NV", 3953, -11981, false},
	{900, 918, "CA", 3405, -11824, false},
	{919, 921, "CA", 3272, -11716, false},
	{922, 929, "CA", 3390, -11760, false},
	{930, 939, "CA", 3590, -11960, false},
	{940, 951, "CA", 3760, -12220, false},
	{952, 961, "CA", 3860, -12150, false},
	{962, 966, "AP", 3762, -12238, false},
	{967, 968, "HI", 2131, -15786, true},
	{969, 969, "GU", 1344, 14479, true},
	{970, 974, "OR", 4552, -12268, false},
	{975, 979, "OR", 4350, -12100, false},
	{980, 987, "WA", 4761, -12233, false},
	{988, 994, "WA", 4700, -11950, false},
	{995, 999, "AK", 6122, -14990, true},
}

// areaOf finds the area of a ZIP code's first three digits (which the
// caller has checked are digits).
func areaOf(zip string) (area, bool) {
	p := int(zip[0]-'0')*100 + int(zip[1]-'0')*10 + int(zip[2]-'0')
	lo, hi := 0, len(areas)
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case p < areas[m].lo:
			hi = m
		case p > areas[m].hi:
			lo = m + 1
		default:
			return areas[m], true
		}
	}
	return area{}, false
}

// distanceMiles is the distance between two areas' centres on a flat map
// scaled for the mean latitude (good to a few percent over the distances
// that decide a zone), in integers: a hundredth of a degree of latitude is
// 0.69 miles, one of longitude 0.69 miles times the cosine.
func distanceMiles(a, b area) int {
	dlat := int64(a.lat - b.lat)
	dlon := int64(a.lon - b.lon)
	if dlon < 0 {
		dlon = -dlon
	}
	if dlon > 18000 { // the short way round the antimeridian
		dlon = 36000 - dlon
	}
	cos := cosPermille((a.lat + b.lat) / 2)
	dy := dlat * 69              // hundredths of a mile
	dx := dlon * 69 * cos / 1000 // hundredths of a mile
	return int(isqrt(dx*dx+dy*dy) / 100)
}

// cosTable holds the cosine, per mille, of 0, 5, 10, ... 90 degrees.
var cosTable = [...]int64{1000, 996, 985, 966, 940, 906, 866, 819, 766, 707, 643, 574, 500, 423, 342, 259, 174, 87, 0}

// cosPermille is cos(lat) per mille for lat in hundredths of a degree,
// interpolated linearly between 5-degree steps.
func cosPermille(lat int) int64 {
	if lat < 0 {
		lat = -lat
	}
	if lat >= 9000 {
		return 0
	}
	i, rem := lat/500, int64(lat%500)
	return cosTable[i] - (cosTable[i]-cosTable[i+1])*rem/500
}

// isqrt is the integer square root (floor) of n >= 0.
func isqrt(n int64) int64 {
	if n < 2 {
		return n
	}
	x := n
	y := (x + 1) / 2
	for y < x {
		x = y
		y = (x + n/x) / 2
	}
	return x
}
