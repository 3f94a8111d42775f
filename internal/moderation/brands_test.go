package moderation

import (
	"fmt"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"   \t\n", ""},
		{"!!! --- ...", ""},
		{"Hermès", "hermes"},
		{"HERMÈS", "hermes"},
		{"Herme\u0300s", "hermes"}, // already decomposed
		{"Chloé", "chloe"},
		{"  Louis   Vuitton  ", "louis vuitton"},
		{"louis-vuitton", "louis vuitton"},
		{"LOUIS_VUITTON", "louis vuitton"},
		{"Louis.Vuitton/Paris", "louis vuitton paris"},
		{"Dolce & Gabbana", "dolce and gabbana"},
		{"Dolce&Gabbana", "dolce and gabbana"},
		{"D&G", "d and g"},
		{"Tod's", "tods"},
		{"Tod’s", "tods"},
		{"Hermès'", "hermes"},
		{"Chanel™ No.5", "chanel no 5"},
		{"Straße", "strasse"},
		{"Søren Æble Œuvre", "soren aeble oeuvre"},
		{"Łódź", "lodz"},
		{"ＤＩＯＲ", "dior"},
		{"Di\u200bor", "dior"},     // zero-width space
		{"Her\u00admes", "hermes"}, // soft hyphen
		{"İstanbul", "istanbul"},
		{"Ünïcödé 123", "unicode 123"},
		{"日本 ブランド", "日本 フラント"}, // letters outside Latin stay words; marks still drop
		{"a\xffb", "a b"},      // invalid UTF-8 separates
	}
	for _, c := range cases {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

var testBrands = []string{
	"Hermès", "Chanel", "Dior", "Louis Vuitton", "Prada", "Celine", "Yves Saint Laurent",
	"Saint Laurent", "Dolce & Gabbana", "D&G", "Tod's", "Gucci", "Cartier", "Rolex",
	"Bottega Veneta", "Van Cleef & Arpels", "Chloé", "", "   ", "&&&&", "--",
}

func TestMatch(t *testing.T) {
	m := NewBrandMatcher(testBrands)
	cases := []struct {
		name   string
		fields []string
		want   string // "" means no match
	}{
		// positives
		{"exact", []string{"Chanel"}, "Chanel"},
		{"lower", []string{"vintage chanel bag"}, "Chanel"},
		{"upper", []string{"VINTAGE CHANEL BAG"}, "Chanel"},
		{"mixed case", []string{"cHaNeL flap"}, "Chanel"},
		{"accent in list, none in text", []string{"hermes birkin 30"}, "Hermès"},
		{"accent in list and text", []string{"Hermès Birkin"}, "Hermès"},
		{"accent in text, none in list", []string{"Ròlex Submariner"}, "Rolex"},
		{"decomposed accent", []string{"Herme\u0300s scarf"}, "Hermès"},
		{"upper accent", []string{"HERMÈS KELLY"}, "Hermès"},
		{"chloe plain", []string{"chloe paddington"}, "Chloé"},
		{"multi word", []string{"Louis Vuitton Neverfull"}, "Louis Vuitton"},
		{"multi word extra spaces", []string{"Louis   \t Vuitton"}, "Louis Vuitton"},
		{"multi word newline", []string{"Louis\nVuitton"}, "Louis Vuitton"},
		{"multi word hyphen", []string{"louis-vuitton speedy"}, "Louis Vuitton"},
		{"multi word underscore", []string{"LOUIS_VUITTON"}, "Louis Vuitton"},
		{"multi word dots", []string{"L.V.? no: Louis.Vuitton"}, "Louis Vuitton"},
		{"multi word mixed punctuation", []string{"louis -- / vuitton"}, "Louis Vuitton"},
		{"ampersand spaced", []string{"Dolce & Gabbana dress"}, "Dolce & Gabbana"},
		{"ampersand tight", []string{"Dolce&Gabbana dress"}, "Dolce & Gabbana"},
		{"ampersand as and", []string{"dolce and gabbana dress"}, "Dolce & Gabbana"},
		{"short form listed", []string{"D&G sunglasses"}, "D&G"},
		{"short form spaced", []string{"D & G sunglasses"}, "D&G"},
		{"ampersand inside longer brand", []string{"van cleef and arpels alhambra"}, "Van Cleef & Arpels"},
		{"apostrophe brand", []string{"Tod's loafers"}, "Tod's"},
		{"apostrophe brand curly", []string{"Tod’s loafers"}, "Tod's"},
		{"apostrophe brand omitted", []string{"Tods loafers"}, "Tod's"},
		{"trailing apostrophe", []string{"Hermès' finest"}, "Hermès"},
		{"possessive", []string{"my Hermès's strap"}, "Hermès"},
		{"possessive curly", []string{"Chanel’s classic"}, "Chanel"},
		{"quoted", []string{"'Chanel' style"}, "Chanel"},
		{"punctuation around", []string{"(Dior)"}, "Dior"},
		{"trademark", []string{"Chanel™ bag"}, "Chanel"},
		{"full width", []string{"ＤＩＯＲ saddle"}, "Dior"},
		{"zero width inside", []string{"Di\u200bor saddle"}, "Dior"},
		{"hashtag", []string{"#gucci #vintage"}, "Gucci"},
		{"end of text", []string{"watch by cartier"}, "Cartier"},
		{"celine dion accepted", []string{"Celine Dion concert tee"}, "Celine"},
		{"longest at same position", []string{"Yves Saint Laurent clutch"}, "Yves Saint Laurent"},
		{"shorter brand alone", []string{"Saint Laurent clutch"}, "Saint Laurent"},
		{"earliest in field wins", []string{"gucci or prada"}, "Gucci"},
		{"earliest in field wins reversed", []string{"prada or gucci"}, "Prada"},
		{"title before description", []string{"Prada tote", "like Gucci"}, "Prada"},
		{"description", []string{"Leather tote", "Authentic Bottega Veneta intrecciato"}, "Bottega Veneta"},
		{"brand field", []string{"Leather tote", "Nice bag", "Gucci"}, "Gucci"},
		{"empty fields skipped", []string{"", "", "gucci"}, "Gucci"},

		// negatives
		{"no fields", nil, ""},
		{"empty field", []string{""}, ""},
		{"plain text", []string{"Leather tote bag, brown, good condition"}, ""},
		{"prefix of word", []string{"Diorama of a castle"}, ""},
		{"suffix of word", []string{"Pradasmith workshop"}, ""},
		{"inside word", []string{"nonchanelish"}, ""},
		{"split word", []string{"Cha nel"}, ""},
		{"partial multi word", []string{"Louis Armstrong record"}, ""},
		{"multi word other order", []string{"Vuitton Louis"}, ""},
		{"multi word with word between", []string{"Louis the Vuitton"}, ""},
		{"multi word joined", []string{"LouisVuitton"}, ""},
		{"ampersand missing", []string{"Dolce Gabbana"}, ""},
		{"brand field unrelated", []string{"Tote", "Bag", "Coach"}, ""},
		{"digits glued", []string{"dior2024"}, ""},
		{"blank entries ignored", []string{"   &&&& -- "}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := m.Match(c.fields...)
			if ok != (c.want != "") || got != c.want {
				t.Errorf("Match(%q) = %q, %v; want %q, %v", c.fields, got, ok, c.want, c.want != "")
			}
		})
	}
}

func TestMatchEmptyList(t *testing.T) {
	for _, list := range [][]string{nil, {}, {"", "  ", "\t\n", "...", "'", "&", " & ", "\u0301"}} {
		m := NewBrandMatcher(list)
		if got, ok := m.Match("Chanel", "Hermès", "black and white", "  ", ""); ok || got != "" {
			t.Errorf("list %q: Match = %q, %v; want no match", list, got, ok)
		}
	}
	var nilM *BrandMatcher
	if _, ok := nilM.Match("Chanel"); ok {
		t.Error("nil matcher matched")
	}
	var zero BrandMatcher
	if _, ok := zero.Match("Chanel"); ok {
		t.Error("zero matcher matched")
	}
}

func TestMatchDuplicatesKeepFirstSpelling(t *testing.T) {
	m := NewBrandMatcher([]string{"HERMES", "Hermès", "hermes"})
	if got, ok := m.Match("hermès bag"); !ok || got != "HERMES" {
		t.Fatalf("Match = %q, %v; want HERMES", got, ok)
	}
}

func TestMatchDoesNotDependOnListOrderForLongest(t *testing.T) {
	for _, list := range [][]string{{"Yves", "Yves Saint Laurent"}, {"Yves Saint Laurent", "Yves"}} {
		m := NewBrandMatcher(list)
		if got, _ := m.Match("yves saint laurent"); got != "Yves Saint Laurent" {
			t.Errorf("list %q: got %q", list, got)
		}
		if got, _ := m.Match("yves klein blue"); got != "Yves" {
			t.Errorf("list %q: got %q", list, got)
		}
	}
}

// fuzzBrands is a realistic list; the fuzz target also adds the fuzzed brand to it.
var fuzzBrands = append([]string{}, testBrands...)

func FuzzMatch(f *testing.F) {
	f.Add("vintage bag", "Hermès", "in great shape")
	f.Add("", "Louis Vuitton", "")
	f.Add("Diorama", "Dior", "Pradasmith")
	f.Add("x'", "Tod's", "&y")
	f.Add("\u0301", "e\u0301", "\u0301")
	f.Add("\xe2\x80", "\xff&\xfe", "\x80")
	f.Add("ＤＩＯＲ", "ß", "Straße")
	f.Fuzz(func(t *testing.T, prefix, brand, suffix string) {
		text := prefix + " " + brand + " " + suffix

		// Never panics, whatever the list and text.
		_ = Normalize(text)
		NewBrandMatcher([]string{prefix, suffix, brand}).Match(prefix, text, suffix)

		if brandKey(brand) == "" {
			if got, ok := NewBrandMatcher([]string{brand}).Match(text); ok {
				t.Fatalf("blank brand %q matched %q as %q", brand, text, got)
			}
			return
		}
		// Alone in the list, the inserted brand is always found, as configured.
		if got, ok := NewBrandMatcher([]string{brand}).Match(text); !ok || got != brand {
			t.Fatalf("brand %q in %q: Match = %q, %v", brand, text, got, ok)
		}
		// Among other brands something is always found, in any field position.
		m := NewBrandMatcher(append(append([]string{}, fuzzBrands...), brand))
		if _, ok := m.Match("", suffix, text); !ok {
			t.Fatalf("brand %q in %q not found among others", brand, text)
		}
	})
}

// benchDescription is a 2 KB listing description without any restricted brand, so Match
// scans all of it (the common, worst case).
func benchDescription(accented bool) string {
	words := "Beautiful leather tote bag in excellent condition with minimal wear on the corners " +
		"and handles; interior is clean, zipper works smoothly, comes with dust bag & original receipt. "
	if accented {
		words = "Très beau sac cabas en cuir, état excellent, légère usure aux coins et poignées; " +
			"intérieur propre, fermeture éclair fluide, livré avec housse & reçu d'origine. "
	}
	var b strings.Builder
	for b.Len() < 2048 {
		b.WriteString(words)
	}
	return b.String()[:2048]
}

func benchBrands() []string {
	brands := append([]string{}, testBrands...)
	for i := len(brands); i < 50; i++ {
		brands = append(brands, fmt.Sprintf("Maison Brand%d", i))
	}
	return brands[:50]
}

func BenchmarkMatch(b *testing.B) {
	m := NewBrandMatcher(benchBrands())
	for _, bc := range []struct {
		name     string
		accented bool
		want     bool
	}{{"ascii", false, false}, {"accented", true, false}} {
		desc := benchDescription(bc.accented)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(desc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := m.Match("Brown leather tote", desc, "Unbranded"); ok != bc.want {
					b.Fatal("unexpected match")
				}
			}
		})
	}
}

func BenchmarkNewBrandMatcher(b *testing.B) {
	brands := benchBrands()
	b.ReportAllocs()
	for b.Loop() {
		NewBrandMatcher(brands)
	}
}
