// Package moderation holds the listing moderation rules (CONTRACT section 6): the restricted
// luxury brand check, counterfeit handling and rejections.
package moderation

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Matching rules of the restricted brand check, shared by Normalize and BrandMatcher:
//
//   - Case and accents are ignored: text is decomposed (NFD), combining marks are dropped
//     and letters are lower-cased, so "Hermès", "HERMES" and "hermes" are equal. Letters
//     that NFD does not split are folded by hand (ß→ss, æ→ae, œ→oe, ø→o, ł→l, đ/ð→d, ı→i,
//     þ→th, ħ→h), and full-width ASCII ("ＤＩＯＲ") is narrowed, so look-alike spellings do
//     not slip through.
//   - A word is a run of letters and digits. Every other character (space, punctuation,
//     "-", "_", "/", ".", symbols such as "™") separates words, and any run of separators
//     counts as one, so "Louis  Vuitton", "louis-vuitton", "LOUIS_VUITTON" and
//     "Louis.Vuitton" are all "louis vuitton".
//   - Brands match whole words only: "Dior" is not found in "Diorama" and "Prada" is not
//     found in "Pradasmith". The flip side is accepted: "Celine" is found in "Celine Dion".
//   - "&" is the word "and": "Dolce & Gabbana", "Dolce&Gabbana" and "dolce and gabbana" are
//     the same; a listed "D&G" is found as "D&G", "D & G" and "d and g".
//   - Apostrophes (' ’ ‘ ʼ ` ´ ′) are dropped, not separators, so "Tod's" equals "Tods".
//     Match also tries the text with apostrophes as separators, so a possessive such as
//     "Hermès's scarf" or a quoted "'Chanel'" is still found.
//   - Invisible format characters (zero-width space, soft hyphen, ...) are dropped, so
//     "Di\u200bor" is "dior".

// Normalize returns the canonical form of s used by the brand check: lower-case,
// accent-free words of letters and digits joined by single spaces, with "&" spelled "and"
// and apostrophes removed. It returns "" when s holds no letter, digit or "&".
func Normalize(s string) string {
	n, _ := fold(decompose(s), false)
	return n
}

// decompose returns s in NFD, skipping the work for ASCII text.
func decompose(s string) string {
	if isASCII(s) {
		return s
	}
	return norm.NFD.String(s)
}

// fold implements Normalize on text already decomposed; with aposSep, apostrophes
// separate words instead of being dropped. It also reports whether s held an apostrophe,
// so Match knows when a second reading is worth it.
func fold(s string, aposSep bool) (_ string, sawApos bool) {
	out := make([]byte, 0, len(s))
	pending := false // a separator was seen since the last word character
	for i := 0; i < len(s); {
		r := rune(s[i])
		if r < utf8.RuneSelf {
			i++
			// ASCII, the bulk of listing text, is settled by one table look-up.
			switch c := asciiClass[r]; c {
			case 0: // separator
				pending = true
				continue
			case '\'':
				sawApos = true
				if aposSep {
					pending = true
				}
				continue
			case '&':
				if len(out) > 0 {
					out = append(out, ' ')
				}
				out = append(out, "and"...)
				pending = true
				continue
			default: // lower-cased letter or digit
				if pending && len(out) > 0 {
					out = append(out, ' ')
				}
				pending = false
				out = append(out, c)
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0xFF01 && r <= 0xFF5E { // full-width ASCII variants
			r -= 0xFEE0
			if c := asciiClass[r]; c != 0 && c != '\'' && c != '&' {
				r = rune(c)
			}
		}
		switch {
		case isApostrophe(r):
			sawApos = true
			if aposSep {
				pending = true
			}
		case r == '&':
			if len(out) > 0 {
				out = append(out, ' ')
			}
			out = append(out, "and"...)
			pending = true
		case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Cf, r):
			// Accents and invisible characters vanish without splitting the word.
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if pending && len(out) > 0 {
				out = append(out, ' ')
			}
			pending = false
			r = unicode.ToLower(r)
			if f, ok := letterFolds[r]; ok {
				out = append(out, f...)
			} else {
				out = utf8.AppendRune(out, r)
			}
		default:
			pending = true
		}
	}
	return string(out), sawApos
}

// asciiClass maps an ASCII byte to its lower-case form when it is a letter or digit, to
// an apostrophe mark for "'" and "`", to itself for "&", and to 0 for separators.
var asciiClass = func() (t [utf8.RuneSelf]byte) {
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c
	}
	for c := byte('a'); c <= 'z'; c++ {
		t[c] = c
		t[c-'a'+'A'] = c
	}
	t['\''], t['`'], t['&'] = '\'', '\'', '&'
	return t
}()

// letterFolds spells out the letters NFD leaves whole, so they compare like their plain
// Latin forms.
var letterFolds = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d",
	'ð': "d", 'ı': "i", 'þ': "th", 'ħ': "h",
}

func isApostrophe(r rune) bool {
	switch r {
	case '\'', '\u2019', '\u2018', '\u02BC', '`', '\u00B4', '\u2032':
		return true
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// BrandMatcher finds restricted brands in listing text. It is built from the admin config
// list on each check, so building is one Normalize per brand and one map insert; it is safe
// for concurrent use once built. The zero value and nil match nothing.
type BrandMatcher struct {
	// byFirst indexes brands by their first normalized word, so a scan costs one map
	// look-up per word of text whatever the number of brands.
	byFirst map[string][]brandEntry
}

type brandEntry struct {
	name string   // the configured spelling, returned by Match
	rest []string // the normalized words after the first
}

// NewBrandMatcher compiles brands. Entries without a letter or digit (empty, blank, pure
// punctuation, or only "&", which would otherwise block every text saying "and") are
// ignored, and of entries that normalize alike the first one listed wins.
func NewBrandMatcher(brands []string) *BrandMatcher {
	m := &BrandMatcher{byFirst: make(map[string][]brandEntry, len(brands))}
	seen := make(map[string]bool, len(brands))
	for _, name := range brands {
		n := brandKey(name)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		words := strings.Split(n, " ")
		e := brandEntry{name: name, rest: words[1:]}
		list := m.byFirst[words[0]]
		// Longest first, so "Yves Saint Laurent" wins over a listed "Yves" at the same spot.
		i := len(list)
		for i > 0 && len(list[i-1].rest) < len(e.rest) {
			i--
		}
		list = append(list, brandEntry{})
		copy(list[i+1:], list[i:])
		list[i] = e
		m.byFirst[words[0]] = list
	}
	return m
}

// brandKey is the normalized form of a configured brand, or "" when the entry is ignored.
func brandKey(name string) string {
	if !strings.ContainsFunc(name, func(r rune) bool {
		return (unicode.IsLetter(r) || unicode.IsDigit(r)) && !isApostrophe(r)
	}) {
		return ""
	}
	return Normalize(name)
}

// Match reports the first restricted brand named in fields, which are searched in order
// (title, description, brand), each from its start; at one position the longest brand wins.
// It returns the brand as configured.
func (m *BrandMatcher) Match(fields ...string) (brand string, ok bool) {
	if m == nil || len(m.byFirst) == 0 {
		return "", false
	}
	for _, f := range fields {
		if f == "" {
			continue
		}
		d := decompose(f)
		n, sawApos := fold(d, false)
		if brand, ok = m.scan(n); ok {
			return brand, true
		}
		if sawApos {
			n, _ = fold(d, true)
			if brand, ok = m.scan(n); ok {
				return brand, true
			}
		}
	}
	return "", false
}

// scan looks for a brand in text already normalized (words separated by single spaces).
func (m *BrandMatcher) scan(text string) (string, bool) {
	for text != "" {
		w, rest, _ := strings.Cut(text, " ")
		for _, e := range m.byFirst[w] {
			if followedBy(rest, e.rest) {
				return e.name, true
			}
		}
		text = rest
	}
	return "", false
}

// followedBy reports whether text starts with words, each a whole word.
func followedBy(text string, words []string) bool {
	for _, w := range words {
		if !strings.HasPrefix(text, w) {
			return false
		}
		text = text[len(w):]
		if text == "" {
			continue
		}
		if text[0] != ' ' {
			return false
		}
		text = text[1:]
	}
	return true
}
