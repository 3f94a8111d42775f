package shipping

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"marketplace/internal/market"
)

// Published sample numbers of each carrier's formats.
func TestCheckTrackingValid(t *testing.T) {
	cases := []struct{ carrier, in, want string }{
		{"ups", "1Z5R89390357567127", "1Z5R89390357567127"},
		{"UPS", "1Z879E930346834440", "1Z879E930346834440"},
		{"ups", "1z410e7w0392751591", "1Z410E7W0392751591"},
		{"Ups", "1Z 8V9 2A7 03 6720 302 4", "1Z8V92A70367203024"},
		{"ups", "1Z999AA10123456784", "1Z999AA10123456784"},

		{"usps", "9400 1112 0108 0805 4830 16", "9400111201080805483016"},
		{"USPS", "9361-2898-7870-0317-6337-95", "9361289878700317633795"},
		{"usps", "9405803699300124287899", "9405803699300124287899"},
		{"usps", "9505 5110 6960 5048 6006 24", "9505511069605048600624"},
		{"usps", "9101 1234 5678 9000 0000 13", "9101123456789000000013"},
		{"usps", "92748931507708513018050063", "92748931507708513018050063"},
		{"usps", "0307 1790 0005 2348 3741", "03071790000523483741"},
		{"usps", "7112 3456 7891 2345 6787", "71123456789123456787"},
		{"usps", "7196 9010 7560 0307 7385", "71969010756003077385"}, // checked with its "91" identifier
		// Scanned barcodes: "420" + ZIP (5 or 9 digits) routing prefix dropped.
		{"usps", "420 22153 9101026837331000039521", "9101026837331000039521"},
		{"usps", "4201002334249200190132607600833457", "9200190132607600833457"},
		// UPU S10 international.
		{"usps", "RB123456785US", "RB123456785US"},
		{"usps", "ee 123 456 785 us", "EE123456785US"},
		{"usps", "RA000000005US", "RA000000005US"}, // 11 - 0 = 11, written 5
		{"usps", "RA000000080US", "RA000000080US"}, // 11 - 56 mod 11 = 10, written 0
		{"fedex", "986578788855", "986578788855"},
		{"FedEx", "4771 7908 1230", "477179081230"},
		{"FEDEX", "799531274483", "799531274483"},
		{"fedex", "790535312317", "790535312317"},
		{"fedex", "974367662710", "974367662710"},
		{"fedex", "0414 4176 0228 964", "041441760228964"},
		{"fedex", "61299998820821171811", "61299998820821171811"},

		{"dhl", "3318810025", "3318810025"},
		{"DHL", "8487135506", "8487135506"},
		{"dhl", "1099 2559 90", "1099255990"},
		{"dhl", "3821724944", "3821724944"},
		{"Dhl", "3318810036", "3318810036"},
	}
	for _, c := range cases {
		got, err := CheckTracking(c.carrier, c.in)
		if err != nil || got != c.want {
			t.Errorf("CheckTracking(%q, %q) = %q, %v; want %q", c.carrier, c.in, got, err, c.want)
		}
	}
}

func TestCheckTrackingInvalid(t *testing.T) {
	cases := []struct{ carrier, in string }{
		{"ups", "2Z5R89390357567127"},  // not 1Z
		{"ups", "1A5R89390357567127"},  // not 1Z
		{"ups", "1Z1111111111111111"},  // check digit
		{"ups", "1Z5R89390357567128"},  // check digit
		{"ups", "1Z5R8939035756712"},   // short
		{"ups", "1Z5R893903575671270"}, // long
		{"ups", "1Z5R8939035756712A"},  // check is a letter
		{"ups", "1Z5R8939035756.127"},  // punctuation
		{"ups", "986578788855"},        // a FedEx number

		{"usps", "9400111201080805483017"},            // check digit
		{"usps", "9200000000000000000000"},            // check digit
		{"usps", "03071790000523483742"},              // check digit
		{"usps", "8400111201080805483016"},            // 22 digits not starting 9
		{"usps", "940011120108080548301"},             // 21 digits
		{"usps", "420000000000000000000000000000"},    // routing prefix, bad number
		{"usps", "420000009200000000000000000000"},    // routing prefix, bad number
		{"usps", "RB123456786US"},                     // S10 check digit
		{"usps", "R1123456785US"},                     // S10 letters
		{"usps", "RB12345678XUS"},                     // S10 digits
		{"usps", "RA000000000US"},                     // S10: 11 is written 5
		{"usps", "RA000000010US"},                     // S10: 10 is written 0
		{"usps", "9400 1112 0108 0805 4830 16 extra"}, // trailing words
		{"usps", "１２３"},                               // full-width digits
		{"usps", strings.Repeat("9", 200)},            // long
		{"usps", "9400\x001112010808054830 16"},       // NUL
		{"fedex", "996578788855"},                     // check digit
		{"fedex", "98657878885"},                      // 11 digits
		{"fedex", "0414417602289645"},                 // 16 digits
		{"fedex", "04144176022896A"},                  // letter
		{"fedex", "1Z5R89390357567127"},               // a UPS number
		{"dhl", "3318810010"},                         // check digit
		{"dhl", "3318810034"},                         // check digit
		{"dhl", "331881002"},                          // 9 digits
		{"dhl", "JJD0099999999"},                      // piece id, not a waybill
		{"dhl", "33188100 25x"},                       // letter
	}
	for _, c := range cases {
		got, err := CheckTracking(c.carrier, c.in)
		if err == nil {
			t.Errorf("CheckTracking(%q, %q) = %q, want an error", c.carrier, c.in, got)
			continue
		}
		assertFieldError(t, err, "tracking_number")
		if msg := market.ErrorOf(err).Fields[0].Message; !strings.Contains(strings.ToLower(msg), c.carrier) {
			t.Errorf("%s %q: message %q does not name the carrier", c.carrier, c.in, msg)
		}
	}
}

func TestCheckTrackingRequired(t *testing.T) {
	for _, n := range []string{"", "   ", "\t"} {
		_, err := CheckTracking("ups", n)
		assertFieldError(t, err, "tracking_number")
		if msg := market.ErrorOf(err).Fields[0].Message; msg != "is required" {
			t.Errorf("%q: message %q", n, msg)
		}
	}
	for _, n := range []string{"-", " - "} {
		_, err := CheckTracking("ups", n)
		assertFieldError(t, err, "tracking_number")
	}
}

func TestCheckTrackingFields(t *testing.T) {
	var c market.Check
	carrier, n := CheckTrackingFields(&c, "FedEx", "9865 7878 8855")
	if carrier != "fedex" || n != "986578788855" || c.Err() != nil {
		t.Fatalf("got %q %q %v", carrier, n, c.Err())
	}
	c.Require(false, "other", "is required")
	if carrier, n := CheckTrackingFields(&c, "dhl", "3318810010"); carrier != "" || n != "" {
		t.Fatalf("got %q %q", carrier, n)
	}
	e := market.ErrorOf(c.Err())
	if len(e.Fields) != 2 || e.Fields[1].Field != "tracking_number" {
		t.Fatalf("fields %+v", e.Fields)
	}
	var c2 market.Check
	CheckTrackingFields(&c2, "pigeon", "1")
	assertFieldError(t, c2.Err(), "carrier")
}

func TestCheckTrackingCarrier(t *testing.T) {
	for _, name := range []string{"USPS", "UPS", "FedEx", "DHL", "usps", " ups ", "FEDEX", "Dhl"} {
		if _, ok := NormalizeCarrier(name); !ok {
			t.Errorf("NormalizeCarrier(%q) not ok", name)
		}
	}
	for _, name := range []string{"", "ontrac", "fed ex", "u.p.s.", "seller", "usps\x00"} {
		_, err := CheckTracking(name, "1Z5R89390357567127")
		assertFieldError(t, err, "carrier")
		if e := market.ErrorOf(err); e.Fields[0].Message != "must be one of usps, ups, fedex, dhl" {
			t.Errorf("carrier %q: message %q", name, e.Fields[0].Message)
		}
	}
}

func assertFieldError(t *testing.T, err error, field string) {
	t.Helper()
	var e *market.Error
	if !errors.As(err, &e) || e.Code != market.CodeValidation || len(e.Fields) != 1 || e.Fields[0].Field != field {
		t.Fatalf("error %v: want VALIDATION_ERROR on %q", err, field)
	}
}

// The GS1 mod-10 check catches every single wrong digit; for every format a
// wrong check digit is caught.
func TestCheckDigitCatchesErrors(t *testing.T) {
	for _, n := range []string{"9400111201080805483016", "9361289878700317633795", "92748931507708513018050063"} {
		for i := range len(n) {
			for d := byte('0'); d <= '9'; d++ {
				if d == n[i] {
					continue
				}
				m := n[:i] + string(d) + n[i+1:]
				if _, err := CheckTracking("usps", m); err == nil {
					t.Errorf("usps accepted %s (digit %d changed in %s)", m, i, n)
				}
			}
		}
	}
	for _, c := range []struct{ carrier, n string }{
		{"ups", "1Z5R89390357567127"}, {"ups", "1Z999AA10123456784"},
		{"fedex", "986578788855"}, {"fedex", "477179081230"},
		{"dhl", "3318810025"}, {"usps", "RB123456785US"},
		{"usps", "9405803699300124287899"},
	} {
		pos := len(c.n) - 1
		if c.carrier == "usps" && len(c.n) == 13 {
			pos = 10
		}
		for d := byte('0'); d <= '9'; d++ {
			if d == c.n[pos] {
				continue
			}
			m := c.n[:pos] + string(d) + c.n[pos+1:]
			if _, err := CheckTracking(c.carrier, m); err == nil {
				t.Errorf("%s accepted %s with a wrong check digit", c.carrier, m)
			}
		}
	}
}

func TestUPSLetterValues(t *testing.T) {
	// A=2 ... H=9, I=0, J=1 ... and so on around the digits.
	want := map[byte]int{'A': 2, 'H': 9, 'I': 0, 'J': 1, 'R': 9, 'S': 0, 'Z': 7, '0': 0, '9': 9}
	for b, v := range want {
		if got := upsValue(b); got != v {
			t.Errorf("upsValue(%c) = %d, want %d", b, got, v)
		}
	}
}

func TestNewTrackingNumber(t *testing.T) {
	for _, carrier := range []string{"usps", "ups", "fedex", "dhl", "FedEx"} {
		seen := map[string]bool{}
		for i := range 500 {
			seed := fmt.Appendf(nil, "order-%d", i)
			n := NewTrackingNumber(carrier, seed)
			got, err := CheckTracking(carrier, n)
			if err != nil || got != n {
				t.Fatalf("%s seed %d: %q does not check: %q, %v", carrier, i, n, got, err)
			}
			if again := NewTrackingNumber(carrier, seed); again != n {
				t.Fatalf("%s: not deterministic: %q then %q", carrier, n, again)
			}
			seen[n] = true
		}
		if len(seen) < 495 {
			t.Errorf("%s: only %d distinct numbers from 500 seeds", carrier, len(seen))
		}
	}
	if n := NewTrackingNumber("usps", nil); len(n) != 22 || !strings.HasPrefix(n, "94") {
		t.Errorf("usps number %q", n)
	}
	if n := NewTrackingNumber("ups", nil); len(n) != 18 || n[8:10] != "03" {
		t.Errorf("ups number %q", n)
	}
	if NewTrackingNumber("usps", []byte("x")) == NewTrackingNumber("fedex", []byte("x")) {
		t.Error("carriers share numbers")
	}
	if n := NewTrackingNumber("ontrac", []byte("x")); n != "" {
		t.Errorf("unknown carrier gave %q", n)
	}
}

func TestTrackingURL(t *testing.T) {
	cases := []struct{ carrier, n, want string }{
		{"usps", "9400 1112 0108 0805 4830 16", "https://tools.usps.com/go/TrackConfirmAction?tLabels=9400111201080805483016"},
		{"UPS", "1z5r89390357567127", "https://www.ups.com/track?tracknum=1Z5R89390357567127"},
		{"FedEx", "986578788855", "https://www.fedex.com/fedextrack/?trknbr=986578788855"},
		{"dhl", "3318810025", "https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id=3318810025"},
		{"dhl", "a&b=c", "https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id=A%26B%3DC"},
		{"ontrac", "C10000000000000", ""},
	}
	for _, c := range cases {
		if got := TrackingURL(c.carrier, c.n); got != c.want {
			t.Errorf("TrackingURL(%q, %q) = %q, want %q", c.carrier, c.n, got, c.want)
		}
	}
}

func FuzzCheckTracking(f *testing.F) {
	for _, s := range []string{"1Z5R89390357567127", "9400 1112 0108 0805 4830 16", "RB123456785US",
		"986578788855", "3318810025", "4201002334249200190132607600833457", "", "420", "１Z"} {
		for _, c := range TrackingCarriers {
			f.Add(c, s)
		}
	}
	f.Fuzz(func(t *testing.T, carrier, number string) {
		n, err := CheckTracking(carrier, number)
		if err != nil {
			if n != "" {
				t.Fatalf("error with a number %q", n)
			}
			if market.CodeOf(err) != market.CodeValidation {
				t.Fatalf("error %v", err)
			}
			return
		}
		for i := 0; i < len(n); i++ {
			if !(n[i] >= '0' && n[i] <= '9' || n[i] >= 'A' && n[i] <= 'Z') {
				t.Fatalf("normalized %q has %q", n, n[i])
			}
		}
		// Normalizing is idempotent: the normalized form checks as itself.
		if again, err := CheckTracking(carrier, n); err != nil || again != n {
			t.Fatalf("%q normalized to %q, which checks as %q, %v", number, n, again, err)
		}
		if TrackingURL(carrier, n) == "" {
			t.Fatal("no tracking URL for a valid number")
		}
	})
}
