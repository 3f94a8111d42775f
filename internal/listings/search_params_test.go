package listings

import (
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"

	"marketplace/internal/market"
)

func ptr(n int64) *int64 { return &n }

func TestParseSearch(t *testing.T) {
	id := market.NewID()
	cases := []struct {
		name  string
		query string
		want  SearchParams
		bad   []string // fields named by the VALIDATION_ERROR, in order
	}{
		{name: "empty", query: "", want: SearchParams{TextField: "q", CategoryField: "categoryId", Limit: 20}},
		{name: "variant A", query: "q=brass+lamp&categoryId=home-decor&condition=good&minPrice=100&maxPrice=5000&sortBy=price_asc&cursor=" + id + "&limit=50",
			want: SearchParams{Text: "brass lamp", TextField: "q", Category: "home-decor", CategoryField: "categoryId",
				Conditions: []string{"good"}, MinPrice: ptr(100), MaxPrice: ptr(5000), Sort: SortPriceAsc, After: id, Limit: 50}},
		{name: "agent guide aliases", query: "search=lamp&category=Home-Decor&sort=NEWEST",
			want: SearchParams{Text: "lamp", TextField: "search", Category: "home-decor", CategoryField: "category", Sort: SortNewest, Limit: 20}},
		{name: "variant B snake case", query: "q=lamp&category=furniture&min_price=0&max_price=0&sort=price_desc&limit=1",
			want: SearchParams{Text: "lamp", TextField: "q", Category: "furniture", CategoryField: "category", MinPrice: ptr(0),
				MaxPrice: ptr(0), Sort: SortPriceDesc, Limit: 1}},
		{name: "q wins over search", query: "search=b&q=a", want: SearchParams{Text: "a", TextField: "q", CategoryField: "categoryId", Limit: 20}},
		{name: "blank values are absent", query: "q=+&limit=&minPrice=&sort=&cursor=&condition=",
			want: SearchParams{TextField: "q", CategoryField: "categoryId", Limit: 20}},
		{name: "new expands", query: "condition=new",
			want: SearchParams{TextField: "q", CategoryField: "categoryId", Conditions: []string{"new_with_tags", "new_without_tags"}, Limit: 20}},
		{name: "condition lists", query: "condition=poor,+NEW_WITH_TAGS&condition=good&condition=new",
			want: SearchParams{TextField: "q", CategoryField: "categoryId", Conditions: []string{"new_with_tags", "new_without_tags", "good", "poor"}, Limit: 20}},
		{name: "equal prices", query: "minPrice=500&maxPrice=500",
			want: SearchParams{TextField: "q", CategoryField: "categoryId", MinPrice: ptr(500), MaxPrice: ptr(500), Limit: 20}},
		{name: "relevance kept for the service", query: "sort=relevance",
			want: SearchParams{TextField: "q", CategoryField: "categoryId", Sort: SortRelevance, Limit: 20}},

		{name: "limit 51", query: "limit=51", bad: []string{"limit"}},
		{name: "limit 0", query: "limit=0", bad: []string{"limit"}},
		{name: "limit negative", query: "limit=-1", bad: []string{"limit"}},
		{name: "limit not a number", query: "limit=ten", bad: []string{"limit"}},
		{name: "limit fraction", query: "limit=2.5", bad: []string{"limit"}},
		{name: "negative price", query: "minPrice=-1", bad: []string{"minPrice"}},
		{name: "negative snake price", query: "max_price=-100", bad: []string{"max_price"}},
		{name: "fractional price", query: "maxPrice=10.5", bad: []string{"maxPrice"}},
		{name: "huge price", query: "maxPrice=99999999999999999999", bad: []string{"maxPrice"}},
		{name: "min above max", query: "minPrice=600&maxPrice=500", bad: []string{"minPrice"}},
		{name: "min above max snake", query: "min_price=600&max_price=500", bad: []string{"min_price"}},
		{name: "unknown sort", query: "sortBy=cheapest", bad: []string{"sortBy"}},
		{name: "unknown sort alias", query: "sort=price", bad: []string{"sort"}},
		{name: "unknown condition", query: "condition=mint", bad: []string{"condition"}},
		{name: "one bad condition in a list", query: "condition=good,broken", bad: []string{"condition"}},
		{name: "cursor not an id", query: "cursor=abc", bad: []string{"cursor"}},
		{name: "text too long", query: "q=" + strings.Repeat("a", MaxSearchText+1), bad: []string{"q"}},
		{name: "every bad field at once", query: "limit=51&minPrice=-1&sort=x&condition=y&cursor=z",
			bad: []string{"condition", "minPrice", "sort", "cursor", "limit"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := url.ParseQuery(c.query)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseSearch(v)
			if c.bad != nil {
				e := market.ErrorOf(err)
				var fields []string
				for _, f := range e.Fields {
					fields = append(fields, f.Field)
				}
				if e.Code != market.CodeValidation || !slices.Equal(fields, c.bad) {
					t.Fatalf("error %v fields %v, want VALIDATION_ERROR on %v", err, fields, c.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestParseLimitAndPriceCheck(t *testing.T) {
	if n, err := ParseLimit(url.Values{}, 10); n != 10 || err != nil {
		t.Fatalf("default: %d %v", n, err)
	}
	if n, err := ParseLimit(url.Values{"limit": {"50"}}, 10); n != 50 || err != nil {
		t.Fatalf("50: %d %v", n, err)
	}
	if _, err := ParseLimit(url.Values{"limit": {"51"}}, 10); market.CodeOf(err) != market.CodeValidation {
		t.Fatalf("51: %v", err)
	}
	p, err := ParsePriceCheck(url.Values{"q": {"espresso machine"}, "condition": {"new"}})
	if err != nil || p.Text != "espresso machine" || len(p.Conditions) != 2 {
		t.Fatalf("price check: %+v %v", p, err)
	}
	if _, err := ParsePriceCheck(url.Values{"category": {"phones"}}); err != nil {
		t.Fatalf("category alone: %v", err)
	}
	for _, v := range []url.Values{{}, {"q": {"!!!"}}, {"search": {" "}}} {
		_, err := ParsePriceCheck(v)
		if e := market.ErrorOf(err); e.Code != market.CodeValidation || e.Fields[0].Field != "q" {
			t.Fatalf("%v: %v", v, err)
		}
	}
	_, err = ParsePriceCheck(url.Values{"search": {"x"}, "condition": {"mint"}})
	if e := market.ErrorOf(err); e.Code != market.CodeValidation || e.Fields[0].Field != "condition" {
		t.Fatalf("bad condition: %v", err)
	}
}

func TestParseText(t *testing.T) {
	w := func(words ...string) TextTerm { return TextTerm{Words: words} }
	cases := []struct {
		in   string
		want []TextTerm
	}{
		{"", nil},
		{"   ", nil},
		{"!!! ''", nil},
		{"lamp", []TextTerm{w("lamp")}},
		{"Brass LAMP", []TextTerm{w("brass"), w("lamp")}},
		{"brass lamp!", []TextTerm{w("brass"), w("lamp")}},
		{"iphone 12", []TextTerm{w("iphone"), w("12")}},
		{"e-bike", []TextTerm{w("e"), w("bike")}},
		{`"brass lamp" desk`, []TextTerm{w("brass", "lamp"), w("desk")}},
		{`desk "brass lamp"`, []TextTerm{w("desk"), w("brass", "lamp")}},
		{`"brass lamp`, []TextTerm{w("brass", "lamp")}}, // unclosed: a phrase to the end
		{`"lamp"`, []TextTerm{w("lamp")}},
		{`""`, nil},
		{`"" lamp ""`, []TextTerm{w("lamp")}},
		{"the lamp of the year", []TextTerm{w("lamp"), w("year")}},
		{"the", []TextTerm{w("the")}}, // only stop words: kept
		{"the a the", []TextTerm{w("the"), w("a")}},
		{"lamp the", []TextTerm{w("lamp")}},
		{`"the lamp" the`, []TextTerm{w("the", "lamp")}}, // phrases keep their stop words
		{"lamp lamp LAMP", []TextTerm{w("lamp")}},
		{"lamp brass lamp", []TextTerm{w("lamp"), w("brass")}},
		{"title:lamp AND NOT (desk* OR -x)", []TextTerm{w("title"), w("lamp"), w("not"), w("desk"), w("x")}},
		{"Café Straße", []TextTerm{w("café"), w("straße")}},
		{"a\x00b\xffc", []TextTerm{w("b"), w("c")}}, // "a" is a stop word
		{strings.Repeat("x", 50), []TextTerm{w(strings.Repeat("x", 40))}},
		{`"a b c d e f g h i j"`, []TextTerm{w("a", "b", "c", "d", "e", "f", "g", "h")}},
		{"1 2 3 4 5 6 7 8 9 10 11 12 13 14", []TextTerm{w("1"), w("2"), w("3"), w("4"), w("5"), w("6"), w("7"), w("8"), w("9"), w("10"), w("11"), w("12")}},
	}
	for _, c := range cases {
		if got := ParseText(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseText(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

// FuzzParseSearch: any query string either parses into a search within
// every bound or is a VALIDATION_ERROR naming a parameter the caller sent;
// nothing panics. The text parser's terms are always safe to quote.
func FuzzParseSearch(f *testing.F) {
	for _, s := range []string{
		"", "q=lamp", "q=brass+lamp&limit=5", "limit=51", "limit=0", "minPrice=-1", "maxPrice=1.5", "cursor=abc",
		"condition=new,good", "condition=mint", "sort=relevance", "sortBy=price_asc&minPrice=5&maxPrice=1",
		"search=%22brass+lamp%22&category=home", "q=%00%FF", "q=title:lamp*+AND+NOT+x", "min_price=9223372036854775807",
		"max_price=9223372036854775808", "limit=%2B5", "q=" + strings.Repeat("%22a", 40),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		p, err := ParseSearch(v)
		if err != nil {
			e := market.ErrorOf(err)
			if e.Code != market.CodeValidation || len(e.Fields) == 0 {
				t.Fatalf("%q: %v is not a VALIDATION_ERROR naming fields", raw, err)
			}
			for _, fe := range e.Fields {
				if _, sent := v[fe.Field]; !sent {
					t.Fatalf("%q: error names %q, which the caller did not send", raw, fe.Field)
				}
			}
			return
		}
		if p.Limit < 1 || p.Limit > MaxSearchLimit {
			t.Fatalf("%q: limit %d", raw, p.Limit)
		}
		if (p.MinPrice != nil && *p.MinPrice < 0) || (p.MaxPrice != nil && *p.MaxPrice < 0) ||
			(p.MinPrice != nil && p.MaxPrice != nil && *p.MinPrice > *p.MaxPrice) {
			t.Fatalf("%q: prices %v %v", raw, p.MinPrice, p.MaxPrice)
		}
		if p.Sort != "" && !slices.Contains([]Sort{SortRelevance, SortNewest, SortPriceAsc, SortPriceDesc}, p.Sort) {
			t.Fatalf("%q: sort %q", raw, p.Sort)
		}
		for _, c := range p.Conditions {
			if !ValidCondition(c) {
				t.Fatalf("%q: condition %q", raw, c)
			}
		}
		if p.After != "" && !market.ValidID(p.After) {
			t.Fatalf("%q: cursor %q", raw, p.After)
		}
		terms := ParseText(p.Text)
		if len(terms) > maxTextTerms {
			t.Fatalf("%q: %d terms", raw, len(terms))
		}
		for _, term := range terms {
			if len(term.Words) == 0 || len(term.Words) > maxPhraseWords {
				t.Fatalf("%q: term %+v", raw, term)
			}
			for _, w := range term.Words {
				if w == "" || len([]rune(w)) > maxWordRunes {
					t.Fatalf("%q: word %q", raw, w)
				}
				for _, r := range w {
					if !unicode.IsLetter(r) && !unicode.IsDigit(r) || unicode.ToLower(r) != r {
						t.Fatalf("%q: word %q holds %q", raw, w, r)
					}
				}
			}
		}
	})
}
