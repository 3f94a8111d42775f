package shipping

import (
	"crypto/sha256"
	"net/url"
	"strings"

	"marketplace/internal/market"
)

// The carriers a seller may ship with and enter a tracking number for.
const (
	CarrierUSPS  = "usps"
	CarrierUPS   = "ups"
	CarrierFedEx = "fedex"
	CarrierDHL   = "dhl"
)

// TrackingCarriers lists the carriers CheckTracking knows, in the order an
// error message names them.
var TrackingCarriers = []string{CarrierUSPS, CarrierUPS, CarrierFedEx, CarrierDHL}

// maxTrackingInput bounds what is looked at: the longest accepted number
// (a 34-digit USPS barcode) with room for spaces and dashes.
const maxTrackingInput = 64

// trackingFormats is the message of a bad number, per carrier: what a valid
// one looks like.
var trackingFormats = map[string]string{
	CarrierUSPS:  "must be a USPS tracking number: 20, 22 or 26 digits (22 and 26 starting with 9) with a valid check digit, or an international number such as EC123456785US",
	CarrierUPS:   "must be a UPS tracking number: 1Z followed by 16 letters or digits, the last a valid check digit",
	CarrierFedEx: "must be a FedEx tracking number: 12 digits with a valid check digit, or 15 or 20 digits",
	CarrierDHL:   "must be a DHL Express waybill number: 10 digits, the last a valid check digit",
}

// NormalizeCarrier is the canonical name ("usps", "ups", "fedex", "dhl") of
// a carrier written in any case, with ok false for an unknown one.
func NormalizeCarrier(carrier string) (string, bool) {
	c := strings.ToLower(strings.TrimSpace(carrier))
	_, ok := trackingFormats[c]
	return c, ok
}

// CheckTracking validates a tracking number against the public format of
// its carrier (usps, ups, fedex, dhl in any case) and returns it
// normalized: spaces and dashes removed, letters upper-case, and for USPS
// the "420" + ZIP routing prefix of a scanned barcode dropped. An unknown
// carrier is a VALIDATION_ERROR on "carrier"; a missing number, one that
// does not fit the carrier's format, or one whose check digit is wrong, one
// on "tracking_number" whose message says what the carrier's numbers look
// like.
func CheckTracking(carrier, number string) (string, error) {
	c, ok := NormalizeCarrier(carrier)
	if !ok {
		return "", market.Invalid(market.FieldError{Field: "carrier", Message: "must be one of usps, ups, fedex, dhl"})
	}
	if strings.TrimSpace(number) == "" {
		return "", market.Invalid(market.FieldError{Field: "tracking_number", Message: "is required"})
	}
	n, ok := normalizeTracking(number)
	if ok {
		switch c {
		case CarrierUSPS:
			n, ok = checkUSPS(n)
		case CarrierUPS:
			ok = checkUPS(n)
		case CarrierFedEx:
			ok = checkFedEx(n)
		case CarrierDHL:
			ok = checkDHL(n)
		}
	}
	if !ok {
		return "", market.Invalid(market.FieldError{Field: "tracking_number", Message: trackingFormats[c]})
	}
	return n, nil
}

// CheckTrackingFields is CheckTracking for a form validated as a whole: a
// bad carrier or number is recorded in c under "carrier" or
// "tracking_number", and the canonical carrier and normalized number are
// returned (empty when invalid).
func CheckTrackingFields(c *market.Check, carrier, number string) (string, string) {
	n, err := CheckTracking(carrier, number)
	if err != nil {
		for _, f := range market.ErrorOf(err).Fields {
			c.Add(f.Field, f.Message)
		}
		return "", ""
	}
	canonical, _ := NormalizeCarrier(carrier)
	return canonical, n
}

// normalizeTracking removes what people type between groups (spaces,
// dashes) and upper-cases; anything else but ASCII letters and digits makes
// the number invalid.
func normalizeTracking(s string) (string, bool) {
	if len(s) > maxTrackingInput {
		return "", false
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == ' ' || r == '-' || r == '\t' || r == '\u00a0':
		case r >= '0' && r <= '9', r >= 'A' && r <= 'Z':
			b.WriteRune(r)
		case r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		default:
			return "", false
		}
	}
	return b.String(), b.Len() > 0
}

// TrackingURL is the carrier's public tracking page for number, or "" for
// a carrier CheckTracking does not know.
func TrackingURL(carrier, number string) string {
	c, ok := NormalizeCarrier(carrier)
	if !ok {
		return ""
	}
	n := url.QueryEscape(strings.ToUpper(strings.NewReplacer(" ", "", "-", "").Replace(number)))
	switch c {
	case CarrierUSPS:
		return "https://tools.usps.com/go/TrackConfirmAction?tLabels=" + n
	case CarrierUPS:
		return "https://www.ups.com/track?tracknum=" + n
	case CarrierFedEx:
		return "https://www.fedex.com/fedextrack/?trknbr=" + n
	default:
		return "https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id=" + n
	}
}

// NewTrackingNumber derives a valid tracking number for carrier from seed
// (the same seed always gives the same number), for labels the platform
// issues itself: USPS a 22-digit IMpb number, UPS a 1Z number (service code
// 03), FedEx a 12-digit express number, DHL a 10-digit waybill. An unknown
// carrier gives "".
func NewTrackingNumber(carrier string, seed []byte) string {
	c, ok := NormalizeCarrier(carrier)
	if !ok {
		return ""
	}
	h := sha256.Sum256(append([]byte(c+"\x00"), seed...))
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = '0' + h[i]%10
		}
		return string(b)
	}
	switch c {
	case CarrierUSPS:
		body := "94001" + digits(16)
		return body + string('0'+gs1CheckDigit(body))
	case CarrierUPS:
		const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		shipper := make([]byte, 6)
		for i := range shipper {
			shipper[i] = alnum[h[20+i]%36]
		}
		body := string(shipper) + "03" + digits(7)
		return "1Z" + body + string('0'+upsCheckDigit(body))
	case CarrierFedEx:
		body := "7" + digits(10)
		return body + string('0'+fedexCheckDigit(body))
	default:
		body := "1" + digits(8)
		return body + string('0'+dhlCheckDigit(body))
	}
}

// allDigits reports whether s is non-empty and only ASCII digits.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// gs1CheckDigit is the GS1 mod-10 check digit of the digits in body (USPS
// IMpb and the older 20-digit numbers): weights 3 and 1 alternate from the
// rightmost digit, which weighs 3, and the check digit brings the sum to a
// multiple of ten.
func gs1CheckDigit(body string) byte {
	sum := 0
	for i := 0; i < len(body); i++ {
		d := int(body[len(body)-1-i] - '0')
		if i%2 == 0 {
			d *= 3
		}
		sum += d
	}
	return byte((10 - sum%10) % 10)
}

// gs1Valid reports whether the last digit of n is the check digit of the rest.
func gs1Valid(n string) bool {
	return len(n) >= 2 && allDigits(n) && gs1CheckDigit(n[:len(n)-1]) == n[len(n)-1]-'0'
}

// checkUSPS accepts the domestic barcodes USPS prints and the UPU S10
// international format. A 20-digit number is checked as printed or, for
// IMpb numbers printed without their "91" application identifier, with it.
// A scanned IMpb barcode carries "420" and the destination ZIP (5 or 9
// digits) first: that prefix is not part of the tracking number and is
// dropped.
func checkUSPS(n string) (string, bool) {
	if len(n) == 13 {
		return n, s10Valid(n)
	}
	if !allDigits(n) {
		return "", false
	}
	if uspsDomesticValid(n) {
		return n, true
	}
	if strings.HasPrefix(n, "420") {
		for _, zip := range []int{5, 9} {
			if rest := n[min(3+zip, len(n)):]; uspsDomesticValid(rest) {
				return rest, true
			}
		}
	}
	return "", false
}

func uspsDomesticValid(n string) bool {
	switch len(n) {
	case 20:
		return gs1Valid(n) || gs1Valid("91"+n)
	case 22, 26:
		return n[0] == '9' && gs1Valid(n)
	}
	return false
}

// s10Weights are the UPU S10 weights of the eight serial digits.
var s10Weights = [8]int{8, 6, 4, 2, 3, 5, 9, 7}

// s10CheckDigit is the S10 check digit of eight serial digits: 11 minus the
// weighted sum modulo 11, where 10 becomes 0 and 11 becomes 5.
func s10CheckDigit(serial string) byte {
	sum := 0
	for i, w := range s10Weights {
		sum += int(serial[i]-'0') * w
	}
	switch c := 11 - sum%11; c {
	case 10:
		return 0
	case 11:
		return 5
	default:
		return byte(c)
	}
}

// s10Valid checks the UPU S10 format: service letters, eight digits, check
// digit, ISO country letters.
func s10Valid(n string) bool {
	if len(n) != 13 || !isUpper(n[0]) || !isUpper(n[1]) || !isUpper(n[11]) || !isUpper(n[12]) {
		return false
	}
	return allDigits(n[2:11]) && s10CheckDigit(n[2:10]) == n[10]-'0'
}

func isUpper(b byte) bool { return b >= 'A' && b <= 'Z' }

// upsValue is a character's value in the UPS check: a digit its own value,
// a letter (its ASCII code - 63) mod 10, so A=2 ... H=9, I=0, J=1 and so on.
func upsValue(b byte) int {
	if b >= '0' && b <= '9' {
		return int(b - '0')
	}
	return (int(b) - 63) % 10
}

// upsCheckDigit is the check digit of the 15 characters between "1Z" and
// the check digit: the values at odd positions (1st, 3rd, ...) are summed,
// those at even positions doubled and summed, and the check digit brings the
// total to a multiple of ten.
func upsCheckDigit(body string) byte {
	sum := 0
	for i := 0; i < len(body); i++ {
		v := upsValue(body[i])
		if i%2 == 1 {
			v *= 2
		}
		sum += v
	}
	return byte((10 - sum%10) % 10)
}

// checkUPS: "1Z", six characters of shipper account, two of service, seven
// of package reference, and a check digit.
func checkUPS(n string) bool {
	if len(n) != 18 || !strings.HasPrefix(n, "1Z") {
		return false
	}
	last := n[17]
	return last >= '0' && last <= '9' && upsCheckDigit(n[2:17]) == last-'0'
}

// fedexWeights weigh the eleven serial digits of a 12-digit FedEx Express
// number, left to right.
var fedexWeights = [11]int{3, 1, 7, 3, 1, 7, 3, 1, 7, 3, 1}

// fedexCheckDigit is the weighted sum of the serial digits modulo 11, with
// a remainder of 10 written as 0.
func fedexCheckDigit(serial string) byte {
	sum := 0
	for i, w := range fedexWeights {
		sum += int(serial[i]-'0') * w
	}
	return byte(sum % 11 % 10)
}

// checkFedEx: 12-digit Express numbers carry a check digit; the 15-digit
// Ground and 20-digit SmartPost/Ground Economy numbers come in variants
// whose check rules differ, so only their shape is checked.
func checkFedEx(n string) bool {
	if !allDigits(n) {
		return false
	}
	switch len(n) {
	case 12:
		return fedexCheckDigit(n[:11]) == n[11]-'0'
	case 15, 20:
		return true
	}
	return false
}

// dhlCheckDigit is the nine-digit serial modulo 7.
func dhlCheckDigit(serial string) byte {
	v := 0
	for i := 0; i < len(serial); i++ {
		v = (v*10 + int(serial[i]-'0')) % 7
	}
	return byte(v)
}

// checkDHL: a DHL Express waybill, nine digits and their mod-7 check digit.
func checkDHL(n string) bool {
	return len(n) == 10 && allDigits(n) && dhlCheckDigit(n[:9]) == n[9]-'0'
}
