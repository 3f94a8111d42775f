package market

import (
	"strings"
	"unicode"
)

// The domain names what it hands out (an error's details and fields, an
// event's data) canonically, in snake_case, dotted for nested fields
// ("spending_controls.daily_limit"); each surface spells them in its
// casing with these, which also accept a name in the other casing.

// CamelName turns a canonical name into camelCase
// ("spending_controls.daily_limit" -> "spendingControls.dailyLimit"); a
// camelCase name stays as it is, and so does an underscore at either end
// of a name or of a dotted part.
func CamelName(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	upper := false
	for i, r := range s {
		switch {
		case r == '_' && i > 0 && i+1 < len(s) && s[i-1] != '.' && s[i+1] != '.':
			upper = true
		case upper:
			b.WriteRune(unicode.ToUpper(r))
			upper = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// SnakeName turns a camelCase name into its canonical snake_case
// ("listingId" -> "listing_id"); a snake_case name stays as it is.
func SnakeName(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 4)
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
