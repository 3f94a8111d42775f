package shipping

import (
	"errors"
	"testing"
)

func TestNormalizeZip(t *testing.T) {
	for in, want := range map[string]string{
		"94103": "94103", "94103-1234": "94103", " 10001 ": "10001", "00501": "00501", "99950": "99950",
	} {
		if got, err := NormalizeZip(in); err != nil || got != want {
			t.Errorf("NormalizeZip(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "9410", "941033", "94103-123", "94103-12345", "94103 1234", "9410a", "ABCDE",
		"94103-abcd", "00000", "00499", "-9410", "９４１０３", "94 103"} {
		if got, err := NormalizeZip(in); !errors.Is(err, ErrZip) {
			t.Errorf("NormalizeZip(%q) = %q, %v; want ErrZip", in, got, err)
		}
	}
}

// The area table covers every prefix from 005 to 999 once, in order, so a
// valid ZIP code always has a place.
func TestAreasCoverEveryPrefix(t *testing.T) {
	next := 5
	for _, a := range areas {
		if a.lo != next || a.hi < a.lo {
			t.Fatalf("area %+v: want it to start at %03d", a, next)
		}
		if a.lat < -9000 || a.lat > 9000 || a.lon < -18000 || a.lon > 18000 || len(a.state) != 2 {
			t.Fatalf("area %+v is out of range", a)
		}
		next = a.hi + 1
	}
	if next != 1000 {
		t.Fatalf("areas end at %03d, want 999", next-1)
	}
}

func TestRouteBetween(t *testing.T) {
	cases := []struct {
		from, to string
		zone     int
		remote   bool
	}{
		{"10001", "10002", 1, false}, // same three digits
		{"10001", "10301", 2, false}, // New York City, other prefixes
		{"10001", "19103", 2, false}, // Philadelphia
		{"10001", "02108", 3, false}, // Boston
		{"10001", "60601", 5, false}, // Chicago
		{"10001", "80202", 7, false}, // Denver
		{"10001", "90012", 8, false}, // Los Angeles
		{"90012", "10001", 8, false}, // and back
		{"94103", "90012", 4, false}, // San Francisco to Los Angeles
		{"96813", "96720", 2, true},  // within Hawaii
		{"94103", "96813", 8, true},  // to Hawaii
		{"98101", "99501", 8, true},  // Seattle to Anchorage
		{"33101", "00901", 8, true},  // Miami to San Juan
		{"10001-0001", "90012-9999", 8, false},
	}
	for _, c := range cases {
		r, err := RouteBetween(c.from, c.to)
		if err != nil || r.Zone != c.zone || r.Remote != c.remote {
			t.Errorf("RouteBetween(%s, %s) = %+v, %v; want zone %d remote %v", c.from, c.to, r, err, c.zone, c.remote)
		}
		back, _ := RouteBetween(c.to, c.from)
		if back != r {
			t.Errorf("route %s -> %s = %+v, but back = %+v", c.from, c.to, r, back)
		}
	}
	if _, err := RouteBetween("1234", "10001"); !errors.Is(err, ErrZip) {
		t.Errorf("bad origin: %v", err)
	}
	if _, err := RouteBetween("10001", "x"); !errors.Is(err, ErrZip) {
		t.Errorf("bad destination: %v", err)
	}
}

// Every pair of areas gets a zone from 1 to 8, and a farther pair from the
// same origin never gets a nearer zone.
func TestZonesFollowDistance(t *testing.T) {
	for _, a := range areas {
		for _, b := range areas {
			from, to := zipOf(a.lo), zipOf(b.lo)
			r, err := RouteBetween(from, to)
			if err != nil || r.Zone < 1 || r.Zone > 8 {
				t.Fatalf("%s -> %s: %+v %v", from, to, r, err)
			}
			if !r.Remote && r.Zone != max(zoneForMiles(r.Miles), 2) && from[:3] != to[:3] {
				t.Fatalf("%s -> %s: zone %d for %d miles", from, to, r.Zone, r.Miles)
			}
		}
	}
	prev := 0
	for miles := 0; miles <= 3000; miles += 7 {
		z := zoneForMiles(miles)
		if z < prev {
			t.Fatalf("zone for %d miles is %d, below %d", miles, z, prev)
		}
		prev = z
	}
}

func zipOf(prefix int) string {
	b := []byte("00000")
	b[0], b[1], b[2] = byte('0'+prefix/100), byte('0'+prefix/10%10), byte('0'+prefix%10)
	return string(b)
}

func TestIsqrt(t *testing.T) {
	for n := int64(0); n < 5000; n++ {
		r := isqrt(n)
		if r*r > n || (r+1)*(r+1) <= n {
			t.Fatalf("isqrt(%d) = %d", n, r)
		}
	}
	big := int64(1) << 40
	if r := isqrt(big); r != 1<<20 {
		t.Fatalf("isqrt(2^40) = %d", r)
	}
}

func TestCosPermille(t *testing.T) {
	for lat, want := range map[int]int64{0: 1000, 4500: 707, 6000: 500, 9000: 0, -4500: 707, 4750: 675} {
		if got := cosPermille(lat); got != want {
			t.Errorf("cos(%d) = %d, want %d", lat, got, want)
		}
	}
}
