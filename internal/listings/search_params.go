package listings

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"marketplace/internal/market"
)

// Search limits (the spec: page size 1 to 50, default 20).
const (
	DefaultSearchLimit  = 20
	MaxSearchLimit      = 50
	DefaultSimilarLimit = 10
	// MaxSearchText bounds the text query, in characters.
	MaxSearchText = 500
)

// SearchParams is a search as the caller asked for it, checked but with the
// category not yet resolved (that needs the store; see Service.Search).
// The *Field members hold the parameter name the caller used, so that an
// error names the field as the caller spelled it.
type SearchParams struct {
	Text          string
	TextField     string
	Category      string // slug or id as given, lower case; "" for any
	CategoryField string
	Conditions    []string // stored conditions ("new" already expanded); nil for any
	MinPrice      *int64   // cents, inclusive
	MaxPrice      *int64   // cents, inclusive
	Sort          Sort     // "" for the default: relevance with text, else newest
	After         string   // cursor: a listing id
	Limit         int
	// NoTotal leaves SearchPage.Total at 0 for a caller that shows no
	// total: counting a large match set is most of an uncached search.
	NoTotal bool
}

// Parameter names, first the canonical one, then its aliases: Variant A
// (q, categoryId, sortBy, minPrice), the agent guide (search, category,
// sort) and Variant B (q, category, sort, min_price). Both surfaces accept
// every spelling.
var (
	textParams      = []string{"q", "search", "query"}
	categoryParams  = []string{"categoryId", "category", "category_id"}
	conditionParams = []string{"condition"}
	minPriceParams  = []string{"minPrice", "min_price"}
	maxPriceParams  = []string{"maxPrice", "max_price"}
	sortParams      = []string{"sortBy", "sort", "sort_by"}
	cursorParams    = []string{"cursor"}
	limitParams     = []string{"limit"}
)

// first returns the first non-empty value among the names, trimmed, with
// the name it came under; ("", names[0]) when none is given.
func first(v url.Values, names []string) (string, string) {
	for _, n := range names {
		for _, s := range v[n] {
			if s = strings.TrimSpace(s); s != "" {
				return s, n
			}
		}
	}
	return "", names[0]
}

// ParseSearch reads a search from query parameters (GET /listings,
// GET /v1/search). Every bad parameter is reported at once, each under the
// name the caller used: a limit outside 1..50 or not a whole number, a
// price that is negative or not a whole number of cents, minPrice above
// maxPrice, an unknown sort or condition, a cursor that is not an id, text
// longer than MaxSearchText.
func ParseSearch(v url.Values) (SearchParams, error) {
	var c market.Check
	p := SearchParams{Limit: DefaultSearchLimit}
	parseWhat(v, &p, &c)
	p.MinPrice = parsePrice(v, minPriceParams, &c)
	p.MaxPrice = parsePrice(v, maxPriceParams, &c)
	if p.MinPrice != nil && p.MaxPrice != nil && *p.MinPrice > *p.MaxPrice {
		_, name := first(v, minPriceParams)
		c.Add(name, "must not be greater than the maximum price")
	}
	if s, name := first(v, sortParams); s != "" {
		p.Sort = Sort(strings.ToLower(s))
		if !slices.Contains([]Sort{SortRelevance, SortNewest, SortPriceAsc, SortPriceDesc}, p.Sort) {
			c.Add(name, "must be one of relevance, newest, price_asc, price_desc")
		}
	}
	if s, name := first(v, cursorParams); s != "" {
		p.After = strings.ToLower(s)
		if !market.ValidID(p.After) {
			c.Add(name, "must be the id of the last listing of the previous page")
		}
	}
	n, err := ParseLimit(v, DefaultSearchLimit)
	if err != nil {
		addFields(&c, err)
		n = DefaultSearchLimit
	}
	p.Limit = n
	return p, c.Err()
}

// parseWhat reads what both a search and a price check look for: the text,
// the category and the conditions.
func parseWhat(v url.Values, p *SearchParams, c *market.Check) {
	p.Text, p.TextField = first(v, textParams)
	if utf8.RuneCountInString(p.Text) > MaxSearchText {
		c.Add(p.TextField, "must be at most "+strconv.Itoa(MaxSearchText)+" characters")
	}
	p.Category, p.CategoryField = first(v, categoryParams)
	p.Category = strings.ToLower(p.Category)
	p.Conditions = parseConditions(v, c)
}

// ParseLimit reads "limit": a whole number from 1 to MaxSearchLimit, def
// when absent.
func ParseLimit(v url.Values, def int) (int, error) {
	s, name := first(v, limitParams)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxSearchLimit {
		return 0, market.Invalid(market.FieldError{Field: name, Message: "must be a whole number from 1 to " + strconv.Itoa(MaxSearchLimit)})
	}
	return n, nil
}

// ParsePriceCheck reads a price check (GET /v1/search/price-check): text,
// category and condition; text is required unless a category is given.
func ParsePriceCheck(v url.Values) (SearchParams, error) {
	var c market.Check
	var p SearchParams
	parseWhat(v, &p, &c)
	if p.Category == "" && len(ParseText(p.Text)) == 0 {
		c.Add(p.TextField, "give a search text (or a category)")
	}
	return p, c.Err()
}

// addFields adds the fields of a validation error to c.
func addFields(c *market.Check, err error) {
	for _, f := range market.ErrorOf(err).Fields {
		c.Add(f.Field, f.Message)
	}
}

// searchConditions maps each condition filter value to the stored ones:
// the spec's five (new = either new_* condition) and the stored six.
var searchConditions = map[string][]string{
	"new":              {"new_with_tags", "new_without_tags"},
	"new_with_tags":    {"new_with_tags"},
	"new_without_tags": {"new_without_tags"},
	"like_new":         {"like_new"},
	"good":             {"good"},
	"fair":             {"fair"},
	"poor":             {"poor"},
}

// parseConditions reads condition filters: repeated and comma-separated
// values, each one of searchConditions. The result is in AllConditions
// order without repeats; nil when none was given.
func parseConditions(v url.Values, c *market.Check) []string {
	want := map[string]bool{}
	for _, name := range conditionParams {
		for _, raw := range v[name] {
			for _, s := range strings.Split(raw, ",") {
				s = strings.ToLower(strings.TrimSpace(s))
				if s == "" {
					continue
				}
				stored, ok := searchConditions[s]
				if !ok {
					c.Add(name, "must be one of new, like_new, good, fair, poor (or new_with_tags, new_without_tags)")
					continue
				}
				for _, st := range stored {
					want[st] = true
				}
			}
		}
	}
	var out []string
	for _, s := range AllConditions {
		if want[s] {
			out = append(out, s)
		}
	}
	return out
}

// parsePrice reads a price filter in cents: a whole number, not negative.
func parsePrice(v url.Values, names []string, c *market.Check) *int64 {
	s, name := first(v, names)
	if s == "" {
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case err != nil:
		c.Add(name, "must be a whole number of cents")
		return nil
	case n < 0:
		c.Add(name, "must not be negative")
		return nil
	}
	return &n
}

// TextTerm is one unit of a text query: a word, or a quoted phrase.
type TextTerm struct {
	Words []string // lower case, letters and digits only, never empty
}

const (
	maxTextTerms   = 12
	maxPhraseWords = 8
	maxWordRunes   = 40
)

// stopWords are left out of a text query (unless it holds nothing else):
// they say little, and PostgreSQL's English configuration drops them, so
// leaving them out keeps the two engines' results alike.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "but": true, "by": true,
	"for": true, "from": true, "has": true, "have": true, "in": true, "into": true, "is": true, "it": true, "its": true,
	"of": true, "on": true, "or": true, "so": true, "than": true, "that": true, "the": true, "this": true, "to": true,
	"was": true, "were": true, "with": true,
}

// ParseText splits free text into terms: runs of letters and digits, lower
// case; text in double quotes is one phrase (an unclosed quote runs to the
// end). Everything else (operators, punctuation, symbols) only separates
// words, so no input can inject query syntax: the store quotes each word.
// Stop words and repeated words are dropped, at most 12 terms are kept,
// long words are cut to 40 characters. Words match whole (after stemming:
// "lamps" finds "lamp"); there is no prefix matching, which cost a search
// about half its time (every indexed word with the prefix is merged).
func ParseText(s string) []TextTerm {
	var terms []TextTerm
	var word []rune
	var phrase []string
	inQuote := false
	flushWord := func() {
		if len(word) == 0 {
			return
		}
		w := string(word[:min(len(word), maxWordRunes)])
		word = word[:0]
		if inQuote {
			if len(phrase) < maxPhraseWords {
				phrase = append(phrase, w)
			}
			return
		}
		terms = append(terms, TextTerm{Words: []string{w}})
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			word = append(word, unicode.ToLower(r))
		case r == '"':
			flushWord()
			if inQuote && len(phrase) > 0 {
				terms = append(terms, TextTerm{Words: phrase})
			}
			phrase, inQuote = nil, !inQuote
		default:
			flushWord()
		}
	}
	flushWord()
	if len(phrase) > 0 {
		terms = append(terms, TextTerm{Words: phrase})
	}
	return tidyTerms(terms)
}

func tidyTerms(terms []TextTerm) []TextTerm {
	keep := terms[:0:0]
	seen := map[string]bool{}
	for _, t := range terms {
		key := strings.Join(t.Words, " ")
		if seen[key] {
			continue
		}
		seen[key] = true
		keep = append(keep, t)
	}
	content := keep[:0:0]
	for _, t := range keep {
		if len(t.Words) > 1 || !stopWords[t.Words[0]] {
			content = append(content, t)
		}
	}
	if len(content) > 0 {
		keep = content
	}
	return keep[:min(len(keep), maxTextTerms)]
}
