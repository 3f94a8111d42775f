package apidoc

import (
	"strings"
	"unicode"
)

// docText turns the quoted 'spans' of a doc text into Markdown code spans
// (a struct tag cannot hold a backquote). A quote opens a span unless it
// follows a letter or digit, and closes it unless a letter or digit follows;
// an apostrophe inside a word (the seller's) does neither.
func docText(s string) string {
	if !strings.Contains(s, "'") {
		return s
	}
	r := []rune(s)
	wordy := func(i int) bool {
		return i >= 0 && i < len(r) && (unicode.IsLetter(r[i]) || unicode.IsDigit(r[i]))
	}
	var b strings.Builder
	open := -1 // where the open span's quote was written
	for i, c := range r {
		if c != '\'' {
			b.WriteRune(c)
			continue
		}
		switch {
		case open < 0 && !wordy(i-1):
			open = b.Len()
			b.WriteRune('`')
		case open >= 0 && !wordy(i+1):
			open = -1
			b.WriteRune('`')
		default:
			b.WriteRune(c)
		}
	}
	if open < 0 {
		return b.String()
	}
	// An unclosed quote is a quote after all.
	out := b.String()
	return out[:open] + "'" + out[open+1:]
}
