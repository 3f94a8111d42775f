package accounts

import (
	"net/mail"
	"regexp"
	"strings"
	"unicode/utf8"

	"marketplace/internal/market"
)

// Limits on what people type.
const (
	MinPasswordLen = 10
	MaxPasswordLen = 256 // hashing cost is bounded by input size
	MaxNameLen     = 80
	MaxURLLen      = 2048
)

var usernameRE = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9_.-]{1,28}[a-z0-9])$`)

// NormalizeEmail trims and lower-cases an e-mail address.
func NormalizeEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// NormalizeUsername trims and lower-cases a username (usernames are case
// insensitive, as on eBay).
func NormalizeUsername(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// ValidEmail reports whether s is a plain address like a@b.example.
func ValidEmail(s string) bool {
	if len(s) > 254 || strings.ContainsAny(s, " <>") {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && strings.Contains(s[at:], ".")
}

// ValidUsername reports whether s (normalized) is 3 to 30 of a-z, 0-9, _ . -
// starting and ending with a letter or digit.
func ValidUsername(s string) bool { return usernameRE.MatchString(s) }

func checkPassword(c *market.Check, field, pw string) {
	n := utf8.RuneCountInString(pw)
	c.Require(n >= MinPasswordLen, field, "must be at least 10 characters")
	c.Require(len(pw) <= MaxPasswordLen, field, "must be at most 256 bytes")
}

func checkDisplayName(c *market.Check, field, s string) {
	n := utf8.RuneCountInString(strings.TrimSpace(s))
	c.Require(n >= 1 && n <= MaxNameLen, field, "must be 1 to 80 characters")
}

// CheckAddress validates a postal address; prefix names the field (for
// example "shipping_address.") in errors.
func CheckAddress(c *market.Check, prefix string, a *Address) {
	trim := func(s *string) { *s = strings.TrimSpace(*s) }
	for _, p := range []*string{&a.Name, &a.Line1, &a.Line2, &a.City, &a.State, &a.Zip, &a.Country, &a.Phone} {
		trim(p)
	}
	if a.Country == "" {
		a.Country = "US"
	}
	a.Country = strings.ToUpper(a.Country)
	short := func(s string, max int) bool { return utf8.RuneCountInString(s) <= max }
	c.Require(a.Line1 != "" && short(a.Line1, 200), prefix+"line1", "is required (at most 200 characters)")
	c.Require(short(a.Line2, 200), prefix+"line2", "must be at most 200 characters")
	c.Require(a.City != "" && short(a.City, 100), prefix+"city", "is required (at most 100 characters)")
	c.Require(short(a.Name, MaxNameLen), prefix+"name", "must be at most 80 characters")
	c.Require(short(a.Phone, 32), prefix+"phone", "must be at most 32 characters")
	c.Require(len(a.Country) == 2 && isUpperAlpha(a.Country), prefix+"country", "must be a two-letter ISO country code")
	if a.Country == "US" {
		a.State = strings.ToUpper(a.State)
		c.Require(usStates[a.State], prefix+"state", "must be a US state code such as CA")
		c.Require(usZipRE.MatchString(a.Zip), prefix+"zip", "must be a US ZIP code (12345 or 12345-6789)")
	} else {
		c.Require(a.State == "" || short(a.State, 100), prefix+"state", "must be at most 100 characters")
		c.Require(a.Zip != "" && short(a.Zip, 16), prefix+"zip", "is required (at most 16 characters)")
	}
}

var usZipRE = regexp.MustCompile(`^[0-9]{5}(-[0-9]{4})?$`)

func isUpperAlpha(s string) bool {
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

var usStates = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Fields(`AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR VI GU AS MP AA AE AP`) {
		m[s] = true
	}
	return m
}()
