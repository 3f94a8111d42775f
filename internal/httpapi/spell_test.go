package httpapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

type spellRound struct {
	Round     int       `json:"round"`
	SentBy    string    `json:"sentByAgent" doc:"Compare 'offerPrice' and 'shippingAddress.postalCode', not 'POST /x' or 'Ab'; 'itemPrice - feeCents' is meta.requestId's, in camelCase."`
	CreatedAt time.Time `json:"createdAt"`
}

type spellTrust struct {
	Untrusted bool     `json:"untrusted"`
	Flags     []string `json:"flags"`
}

type spellView struct {
	ID          string                `json:"id"`
	ListingID   string                `json:"listingId" format:"uuid"`
	OfferPrice  int64                 `json:"offerPrice" minimum:"1"`
	Counter     *int64                `json:"counterPrice,omitempty"`
	Photos      []string              `json:"photoUrls" snake:"photos"`
	AOnly       string                `json:"paymentMethodId" snake:"-"`
	Rounds      []spellRound          `json:"rounds"`
	Latest      *spellRound           `json:"latestRound"`
	ByParty     map[string]spellRound `json:"byParty"`
	Trust       *spellTrust           `json:"contentTrust,omitempty"`
	Raw         json.RawMessage       `json:"rawData"`
	NoTag       string
	Untouchable spellTrust `json:"-"`
}

// TestSpell: a view spelled in snake_case encodes as its twin, the same
// values under snake_case names, overrides and omissions honoured, types
// without names of ours untouched; camelCase is the view itself.
func TestSpell(t *testing.T) {
	c := int64(900)
	at := time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)
	r := spellRound{Round: 2, SentBy: "x", CreatedAt: at}
	v := spellView{ID: "o1", ListingID: "l1", OfferPrice: 1000, Counter: &c, Photos: []string{"p"}, AOnly: "pm",
		Rounds: []spellRound{r}, Latest: &r, ByParty: map[string]spellRound{"buyer": r}, Trust: &spellTrust{Untrusted: true},
		Raw: json.RawMessage(`{"keptAs":1}`), NoTag: "n"}
	round := `{"round":2,"sent_by_agent":"x","created_at":"2026-11-28T07:00:00Z"}`
	want := `{"id":"o1","listing_id":"l1","offer_price":1000,"counter_price":900,"photos":["p"],"rounds":[` + round +
		`],"latest_round":` + round + `,"by_party":{"buyer":` + round + `},"content_trust":{"untrusted":true,"flags":null},` +
		`"raw_data":{"keptAs":1},"NoTag":"n"}`
	for name, in := range map[string]any{"value": v, "pointer": &v} {
		got, err := json.Marshal(Spell(in, Snake))
		if err != nil || string(got) != want {
			t.Errorf("%s: %s %v\nwant %s", name, got, err, want)
		}
	}
	list, err := json.Marshal(Spell([]spellView{v, v}, Snake))
	if err != nil || string(list) != "["+want+","+want+"]" {
		t.Errorf("slice: %s %v", list, err)
	}
	if Spell(v, Camel).(spellView).ListingID != "l1" {
		t.Error("camelCase must be the view itself")
	}
	camel, _ := json.Marshal(v)
	if !strings.Contains(string(camel), `"listingId":"l1"`) || !strings.Contains(string(camel), `"paymentMethodId":"pm"`) {
		t.Errorf("camelCase: %s", camel)
	}
	if got := Spell((*spellView)(nil), Snake); !reflect.ValueOf(got).IsNil() {
		t.Errorf("nil pointer: %#v", got)
	}

	// Types that have no names of ours are their own twins.
	for _, same := range []any{spellTrust{}, time.Time{}, json.RawMessage(nil), []string{}, map[string]any{}, 3, []spellSnakeTree{}} {
		if tt := reflect.TypeOf(same); snakeTwin(tt) != tt {
			t.Errorf("%v got a twin", tt)
		}
	}
	// The twin keeps the other tags, and spells the names in doc spans.
	tw := reflect.TypeOf(SnakeOf(spellView{}))
	if f, _ := tw.FieldByName("ListingID"); f.Tag.Get("format") != "uuid" || f.Tag.Get("json") != "listing_id" {
		t.Errorf("listing id tag: %q", f.Tag)
	}
	rt := reflect.TypeOf(SnakeOf(spellRound{}))
	if f, _ := rt.FieldByName("SentBy"); f.Tag.Get("doc") != "Compare 'offer_price' and 'shipping_address.postal_code', not 'POST /x' or 'Ab'; 'item_price - fee_cents' is meta.request_id's, in camelCase." {
		t.Errorf("doc: %q", f.Tag.Get("doc"))
	}
	if snakeTwin(reflect.TypeOf(spellView{})) != tw {
		t.Error("twins are made once per type")
	}
}

type spellTree struct {
	Name     string      `json:"name"`
	Children []spellTree `json:"childNodes"`
}

// spellSnakeTree holds itself but renames nothing: it is its own twin.
type spellSnakeTree struct {
	Name     string           `json:"name"`
	Children []spellSnakeTree `json:"child_nodes"`
}

type spellHidden struct {
	ListingID string `json:"listingId"`
	secret    int
}

// TestSpellRefused: StructOf can twin neither a type that holds itself nor
// one with unexported fields; such a view is refused loudly at its first
// use (tests), never spelled wrong in silence.
func TestSpellRefused(t *testing.T) {
	for name, v := range map[string]any{"recursive": spellTree{}, "unexported": spellHidden{secret: 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: twinned", name)
				}
			}()
			SnakeOf(v)
		}()
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{"listingId": "listing_id", "id": "id", "photoUrls": "photo_urls", "line1": "line1",
		"weightOz": "weight_oz", "listing_id": "listing_id", "l": "l"} {
		if got := SnakeCase(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

func BenchmarkSpell(b *testing.B) {
	v := &spellView{ID: "o1", ListingID: "l1", Rounds: []spellRound{{Round: 1}}}
	b.Run("snake", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(Spell(v, Snake)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("camel", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(Spell(v, Camel)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
