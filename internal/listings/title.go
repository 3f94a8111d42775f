package listings

import (
	"strings"
	"unicode/utf8"
)

// How titles are cut and cased, shared by the lifecycle (a removed
// listing's title is its clipped brief) and the built-in generator.

// titleSmallWords stay lower case inside a title.
var titleSmallWords = map[string]bool{
	"a": true, "an": true, "and": true, "the": true, "or": true, "of": true, "for": true, "with": true,
	"in": true, "on": true, "to": true, "by": true, "at": true, "as": true, "per": true, "from": true,
	"nor": true, "but": true, "w/": true,
}

// IsTitleSmallWord reports whether w (lower case) stays lower case inside a
// title: articles, short conjunctions and prepositions.
func IsTitleSmallWord(w string) bool { return titleSmallWords[w] }

// TrimDangling drops words a cut left hanging at either end ("with", "and",
// "-").
func TrimDangling(parts []string) []string {
	dangling := func(s string) bool {
		l := strings.ToLower(s)
		return titleSmallWords[l] || l == "&" || l == "+" || l == "-" || l == "/" || l == "w" || l == "w/"
	}
	for len(parts) > 0 && dangling(parts[len(parts)-1]) {
		parts = parts[:len(parts)-1]
	}
	for len(parts) > 0 && dangling(parts[0]) && strings.ToLower(parts[0]) != "the" {
		parts = parts[1:]
	}
	return parts
}

// ClipTitle keeps a title within MaxTitleLen runes, cutting at a word.
func ClipTitle(t string) string {
	if utf8.RuneCountInString(t) <= MaxTitleLen {
		return t
	}
	parts := strings.Fields(t)
	for len(parts) > 1 && utf8.RuneCountInString(strings.Join(parts, " ")) > MaxTitleLen {
		parts = TrimDangling(parts[:len(parts)-1])
	}
	out := strings.Join(parts, " ")
	if utf8.RuneCountInString(out) > MaxTitleLen {
		out = string([]rune(out)[:MaxTitleLen])
	}
	return out
}
